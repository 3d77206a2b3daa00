package graph

import (
	"context"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
)

// What each subscription of a space hears, by action id prefix.
var (
	// changeRequestActionPrefixes: created, updated (subject, status:
	// archived is closed), content changed, updated from main, merged, and
	// the reviews issue 28 adds under the same prefix.
	changeRequestActionPrefixes = []string{"change_request."}
	// commentActionPrefixes: comments and replies, posted, updated,
	// resolved, reopened, deleted.
	commentActionPrefixes = []string{"comment.", "comment_reply."}
)

// isContentAction reports whether action moves a space's content to a new
// revision (the catalog's defineContent).
func isContentAction(action string) bool {
	a, ok := events.Lookup(action)
	return ok && a.Content
}

// contentActions are the catalog's content actions.
func contentActions() []string {
	var ids []string
	for _, a := range events.Actions() {
		if a.Content {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

func hasPrefix(action string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(action, p) {
			return true
		}
	}
	return false
}

// streamMatch accepts the events of a space (and of one of its change
// requests, when crID is given) whose action has one of prefixes.
func streamMatch(spaceID string, crID *string, prefixes []string) func(*ent.Event) bool {
	return func(e *ent.Event) bool {
		return e.SpaceID == spaceID && (crID == nil || e.ChangeRequestID == *crID) && hasPrefix(e.Action, prefixes)
	}
}

// changeRequestStream checks that the caller may read the space (and the
// change request, when crID is given) and says which stored events the
// stream resumes with.
func (r *Resolver) changeRequestStream(ctx context.Context, spaceID string, crID *string, prefixes []string) ([]predicate.Event, error) {
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	missed := []predicate.Event{event.SpaceID(spaceID)}
	if crID != nil {
		cr, err := r.FindChangeRequest(ctx, spaceID, *crID)
		if err != nil {
			return nil, err
		}
		*crID = cr.ID // a number names it too
		missed = append(missed, event.ChangeRequestID(cr.ID))
	}
	var byPrefix []predicate.Event
	for _, p := range prefixes {
		byPrefix = append(byPrefix, event.ActionHasPrefix(p))
	}
	return append(missed, event.Or(byPrefix...)), nil
}

// knownActions checks an action filter against the catalog.
func knownActions(actions []string) error {
	for _, a := range actions {
		if _, ok := events.Lookup(a); !ok {
			return apperr.InvalidField("actions", "%q is not an action id (see Organization.auditEventActions)", a)
		}
	}
	return nil
}

// spaceContentUpdate is a content event as spaceContentUpdated sends it.
func (r *Resolver) spaceContentUpdate(ctx context.Context, e *ent.Event) (*model.SpaceContentUpdate, error) {
	s, _, err := visibleSpace(ctx, e.SpaceID)
	if err != nil {
		return nil, err
	}
	revID, _ := e.Payload["revisionId"].(string)
	rev, err := r.spaceRevisionByID(ctx, s.ID, revID)
	if err != nil {
		return nil, err
	}
	return &model.SpaceContentUpdate{EventID: e.ID, Action: e.Action, OccurredAt: e.OccurredAt, Space: s, Revision: rev}, nil
}

// changeRequestActivity is a change request's event as
// changeRequestUpdated sends it.
func (r *Resolver) changeRequestActivity(ctx context.Context, e *ent.Event) (*model.ChangeRequestActivity, error) {
	s, _, err := visibleSpace(ctx, e.SpaceID)
	if err != nil {
		return nil, err
	}
	cr, err := r.FindChangeRequest(ctx, s.ID, e.ChangeRequestID)
	if err != nil {
		return nil, err
	}
	return &model.ChangeRequestActivity{EventID: e.ID, Action: e.Action, OccurredAt: e.OccurredAt, Space: s, ChangeRequest: cr}, nil
}

// commentActivity is a comment's or a reply's event as commentPosted sends
// it; what was deleted since is null.
func (r *Resolver) commentActivity(ctx context.Context, e *ent.Event) (*model.CommentActivity, error) {
	s, _, err := visibleSpace(ctx, e.SpaceID)
	if err != nil {
		return nil, err
	}
	a := &model.CommentActivity{EventID: e.ID, Action: e.Action, OccurredAt: e.OccurredAt, Space: s, CommentID: e.TargetID}
	if e.ChangeRequestID != "" {
		if a.ChangeRequest, err = r.FindChangeRequest(ctx, s.ID, e.ChangeRequestID); err != nil && !isNotFound(err) {
			return nil, err
		}
	}
	if strings.HasPrefix(e.Action, "comment_reply.") {
		a.CommentID, _ = e.Payload["commentId"].(string)
		a.ReplyID = &e.TargetID
		if a.Reply, err = r.Client.CommentReply.Get(ctx, e.TargetID); err != nil && !ent.IsNotFound(err) {
			return nil, err
		}
	}
	if a.Comment, err = r.Client.Comment.Get(ctx, a.CommentID); err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	return a, nil
}

// isNotFound reports a 404 of the application.
func isNotFound(err error) bool {
	e, ok := apperr.As(err)
	return ok && e.Kind == apperr.NotFound
}
