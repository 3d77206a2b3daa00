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
// change request, when crID is given), and answers the space and which
// stored events the stream resumes with.
func (r *Resolver) changeRequestStream(ctx context.Context, spaceID string, crID *string, prefixes []string) (*ent.Space, []predicate.Event, error) {
	s, _, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return nil, nil, err
	}
	missed := []predicate.Event{event.SpaceID(spaceID)}
	if crID != nil {
		cr, err := r.FindChangeRequest(ctx, spaceID, *crID)
		if err != nil {
			return nil, nil, err
		}
		*crID = cr.ID // a number names it too
		missed = append(missed, event.ChangeRequestID(cr.ID))
	}
	var byPrefix []predicate.Event
	for _, p := range prefixes {
		byPrefix = append(byPrefix, event.ActionHasPrefix(p))
	}
	return s, append(missed, event.Or(byPrefix...)), nil
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

// accessActions are the actions that can take away someone's access to a
// space without being events of the space: grants removed or lowered (on
// the space or a collection above it; grant events reach a space stream
// whatever they change, a grant added being checked as cheaply as any),
// a team membership or a team removed (with the team's grants), a member's
// role changed or the member removed, a collection's default level
// changed or the collection moved or deleted (the space's own changes are
// its events: space.updated, space.moved).
var accessActions = map[string]bool{
	events.TeamMemberRemoved: true, events.TeamDeleted: true,
	events.MemberRoleUpdated: true, events.MemberRemoved: true,
	events.CollectionUpdated: true, events.CollectionMoved: true, events.CollectionDeleted: true,
	events.SpaceUpdated: true, events.SpaceMoved: true, events.SpaceDeleted: true, events.SpaceTransferred: true,
}

// changesAccess reports whether e, an event of organization orgID, may
// have changed who sees its spaces: every grant event (events.Grant*) and
// accessActions.
func changesAccess(orgID string, e *ent.Event) bool {
	return e.OrganizationID == orgID && (strings.HasPrefix(e.Action, "grant.") || accessActions[e.Action])
}

// watchingAccess makes a stream of a space of orgID hear, besides the
// events match accepts, those that may change who sees the space
// (changesAccess): for those, the caller's access is read again
// (visibleSpace, with fresh loaders like every event's) and nothing is
// sent while they keep it; when they lost it, the stream sends that error
// and ends, at once rather than at the space's next event.
func watchingAccess[T any](orgID, spaceID string, match func(*ent.Event) bool,
	build func(ctx context.Context, e *ent.Event) (*T, error)) (func(*ent.Event) bool, func(ctx context.Context, e *ent.Event) (*T, error)) {
	return func(e *ent.Event) bool {
			return match(e) || changesAccess(orgID, e)
		}, func(ctx context.Context, e *ent.Event) (*T, error) {
			if match(e) {
				return build(ctx, e)
			}
			_, _, err := visibleSpace(ctx, spaceID)
			return nil, err
		}
}
