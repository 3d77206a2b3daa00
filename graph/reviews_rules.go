package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/mergerules"
)

// Merge rules: an organization's apply to its spaces that inherit them (a
// space's absent rules inherit); a merge must pass those of its space
// (internal/mergerules). Both APIs set them through the organization's and
// the space's updates, and show how a change request stands against them
// (Mergeability) so that a front end can say so before anyone merges.

// OrganizationMergeRules are an organization's rules (none when unset).
func OrganizationMergeRules(o *ent.Organization) *mergerules.Config {
	if o.MergeRules == nil || o.MergeRules.Type == "" {
		return &mergerules.Config{Type: mergerules.TypeNone, Rules: []mergerules.Rule{}}
	}
	return withRuleList(*o.MergeRules)
}

// SpaceMergeRules are a space's own rules (inherit when unset).
func SpaceMergeRules(s *ent.Space) *mergerules.Config {
	if s.MergeRules == nil || s.MergeRules.Type == "" {
		return &mergerules.Config{Type: mergerules.TypeInherit, Rules: []mergerules.Rule{}}
	}
	return withRuleList(*s.MergeRules)
}

// withRuleList is c with lists of rules and users that are never nil
// (GraphQL's are non-null lists).
func withRuleList(c mergerules.Config) *mergerules.Config {
	rules := make([]mergerules.Rule, len(c.Rules))
	for i, rule := range c.Rules {
		if rule.Users == nil {
			rule.Users = []string{}
		}
		rules[i] = rule
	}
	c.Rules = rules
	return &c
}

// checkMergeRules checks rules set on organization orgID (inherit false)
// or on one of its spaces: the configuration itself (mergerules.Check),
// then that every user a rule names is a member of the organization.
func (r *Resolver) checkMergeRules(ctx context.Context, orgID string, c *mergerules.Config, inherit bool) error {
	if c == nil {
		return apperr.InvalidField("mergeRules", "cannot be null: set {\"type\": \"none\"} to remove the rules")
	}
	if err := mergerules.Check(*c, inherit); err != nil {
		if e, ok := err.(*mergerules.Error); ok {
			return apperr.InvalidField("mergeRules."+e.Field, "%s", e.Message)
		}
		return err
	}
	users := c.UserIDs()
	if len(users) == 0 {
		return nil
	}
	found, err := r.Client.Member.Query().Where(member.OrganizationID(orgID), member.UserIDIn(users...)).
		Select(member.FieldUserID).Strings(ctx)
	if err != nil {
		return err
	}
	known := make(map[string]bool, len(found))
	for _, u := range found {
		known[u] = true
	}
	for i, rule := range c.Rules {
		for j, u := range rule.Users {
			if !known[u] {
				return apperr.InvalidField(fmt.Sprintf("mergeRules.rules[%d].users[%d]", i, j), "user %s is not a member of the organization", u)
			}
		}
	}
	return nil
}

// effectiveMergeRules are the rules a space's change requests must pass:
// its own, or its organization's when it inherits them.
func effectiveMergeRules(ctx context.Context, s *ent.Space) (mergerules.Config, error) {
	if own := SpaceMergeRules(s); own.Type != mergerules.TypeInherit {
		return *own, nil
	}
	o, err := loader.For(ctx).OrganizationByID.Load(ctx, s.OrganizationID)()
	if err != nil {
		return mergerules.Config{}, err
	}
	return *OrganizationMergeRules(o), nil
}

// Mergeability is how a change request stands against its space's merge
// rules if the caller merged it now. The reviews, requests and users of
// every change request a list shows are read together, so a list's
// statements do not grow with its length.
func (r *Resolver) Mergeability(ctx context.Context, cr *ent.ChangeRequest) (*mergerules.Verdict, error) {
	s, _, err := visibleSpace(ctx, cr.SpaceID)
	if err != nil {
		return nil, err
	}
	v, err := r.verdict(ctx, s, cr, auth.ViewerID(ctx))
	if v.Rules == nil {
		v.Rules = []mergerules.Result{} // a non-null list
	}
	return &v, err
}

// verdict evaluates the merge rules of space s for cr, merged by merger.
func (r *Resolver) verdict(ctx context.Context, s *ent.Space, cr *ent.ChangeRequest, merger string) (mergerules.Verdict, error) {
	rules, err := effectiveMergeRules(ctx, s)
	if err != nil {
		return mergerules.Verdict{}, err
	}
	if rules.Type != mergerules.TypeRules || len(rules.Rules) == 0 {
		return mergerules.Evaluate(rules, mergerules.Context{}), nil
	}
	st, err := r.reviewState(ctx, cr.ID)
	if err != nil {
		return mergerules.Verdict{}, err
	}
	if err := r.primeRuleUsers(ctx, cr.ID); err != nil {
		return mergerules.Verdict{}, err
	}
	outdated, err := r.Outdated(ctx, cr)
	if err != nil {
		return mergerules.Verdict{}, err
	}
	in := mergerules.Context{
		ChangeRequest: mergerules.ChangeRequest{
			Subject: cr.Subject, Description: cr.Description, Author: cr.CreatedBy, Outdated: outdated,
			Reviews: []mergerules.Review{}, RequestedReviewers: []string{},
		},
		Merger: merger,
		Names:  map[string]string{},
	}
	for _, rv := range st.latest {
		in.ChangeRequest.Reviews = append(in.ChangeRequest.Reviews, mergerules.Review{
			Reviewer: rv.ReviewerID, Status: string(rv.Status), Outdated: ReviewOutdated(rv, cr),
		})
	}
	for _, rq := range st.requests {
		in.ChangeRequest.RequestedReviewers = append(in.ChangeRequest.RequestedReviewers, rq.UserID)
	}
	// Users' names for the messages; all were read with the level.
	names := append(rules.UserIDs(), in.ChangeRequest.RequestedReviewers...)
	for _, rv := range st.latest {
		names = append(names, rv.ReviewerID)
	}
	l := loader.For(ctx)
	for _, id := range dedupe(names) {
		if u, err := l.UserByID.Load(ctx, id)(); err == nil && u != nil {
			in.Names[id] = displayName(u)
		}
	}
	return mergerules.Evaluate(rules, in), nil
}

// displayName is how a message names a user.
func displayName(u *ent.User) string {
	if strings.TrimSpace(u.DisplayName) != "" {
		return u.DisplayName
	}
	return u.ID
}

// primeRuleUsers reads, once for the change requests of cr's level, the
// users their spaces' merge rules name (for the messages): one statement.
func (r *Resolver) primeRuleUsers(ctx context.Context, crID string) error {
	_, err := loader.PerParent(ctx, loader.ChangeRequests, "merge rule users", crID, func(ctx context.Context, crs []string) (map[string]bool, error) {
		l := loader.For(ctx)
		thunks := make([]func() (*ent.ChangeRequest, error), len(crs))
		for i, id := range crs {
			thunks[i] = l.ChangeRequestByID.Load(ctx, id)
		}
		var users []string
		seen := map[string]bool{}
		for _, th := range thunks {
			cr, err := th()
			if err != nil || seen[cr.SpaceID] {
				continue
			}
			seen[cr.SpaceID] = true
			s, err := l.SpaceByID.Load(ctx, cr.SpaceID)()
			if err != nil {
				continue
			}
			rules, err := effectiveMergeRules(ctx, s)
			if err != nil {
				return nil, err
			}
			users = append(users, rules.UserIDs()...)
		}
		return map[string]bool{}, l.PrimeUsers(ctx, users)
	})
	return err
}

// checkMergeable refuses (409) a merge by the caller that the rules do
// not allow, naming every rule that fails; it answers the verdict, which
// says whether the merge bypasses rules.
func (r *Resolver) checkMergeable(ctx context.Context, s *ent.Space, cr *ent.ChangeRequest) (mergerules.Verdict, error) {
	v, err := r.verdict(ctx, s, cr, auth.ViewerID(ctx))
	if err != nil || v.Mergeable {
		return v, err
	}
	var failed []string
	for _, res := range v.Failed() {
		failed = append(failed, fmt.Sprintf("%s (%s)", res.Rule, res.Message))
	}
	return v, apperr.Conflictf("change request %d does not pass the merge rules: %s", cr.Number, strings.Join(failed, "; "))
}

// bypassedRules names the rules a bypassing merge did not pass.
func bypassedRules(v mergerules.Verdict) []string {
	out := []string{}
	for _, res := range v.Failed() {
		out = append(out, string(res.Rule))
	}
	return out
}

// mergeRulesChanged tells whether e changed the merge rules that apply to
// space s: its own (space.updated) or its organization's
// (organization.updated), with mergeRules among the fields.
func mergeRulesChanged(s *ent.Space, e *ent.Event) bool {
	switch {
	case e.Action == events.SpaceUpdated && e.SpaceID == s.ID:
	case e.Action == events.OrganizationUpdated && e.OrganizationID == s.OrganizationID && e.SpaceID == "":
	default:
		return false
	}
	switch fields := e.Payload["fields"].(type) {
	case []string:
		return slices.Contains(fields, "mergeRules")
	case []any:
		return slices.Contains(fields, any("mergeRules"))
	}
	return false
}

// withMergeRuleEvents extends a change request's stream (changeRequestUpdated
// with a change request) to the changes of the merge rules that apply to
// it, which change its mergeability: live (match, build) and resumed
// (missed).
func (r *Resolver) withMergeRuleEvents(s *ent.Space, crID string, match func(*ent.Event) bool, missed []predicate.Event) (func(*ent.Event) bool, []predicate.Event, func(context.Context, *ent.Event) (*model.ChangeRequestActivity, error)) {
	rules := predicate.Event(event.Or(
		event.And(event.Action(events.SpaceUpdated), event.SpaceID(s.ID)),
		event.And(event.Action(events.OrganizationUpdated), event.OrganizationID(s.OrganizationID), event.SpaceID("")),
	))
	build := func(ctx context.Context, e *ent.Event) (*model.ChangeRequestActivity, error) {
		if match(e) {
			return r.changeRequestActivity(ctx, e)
		}
		if !mergeRulesChanged(s, e) {
			return nil, nil // resumed: another change of the space or organization
		}
		sp, _, err := visibleSpace(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		cr, err := r.FindChangeRequest(ctx, s.ID, crID)
		if err != nil {
			return nil, err
		}
		return &model.ChangeRequestActivity{EventID: e.ID, Action: e.Action, OccurredAt: e.OccurredAt, Space: sp, ChangeRequest: cr}, nil
	}
	return func(e *ent.Event) bool { return match(e) || mergeRulesChanged(s, e) },
		[]predicate.Event{event.Or(event.And(missed...), rules)}, build
}
