package loader

import (
	"context"
	"sort"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/ent/user"
)

// ReadLoaders batch the reads of issue 16 (revision history, contributors,
// organization change requests) that fan out over a list.
type ReadLoaders struct {
	// SpaceRevisions are every revision of a space, oldest first (by
	// created_at, id): the space's history is walked from them in memory, so
	// one statement serves the revisions of a whole list of spaces (by
	// level: the spaces one list shows).
	SpaceRevisions *Loader[[]*ent.Revision]
	// MergedFrom is the change request whose merge made a revision, keyed
	// by revision id; nil for other revisions.
	MergedFrom *Loader[*ent.ChangeRequest]
	// Contributors are the contributions to change requests, keyed by
	// change request id.
	Contributors *Loader[[]Contribution]

	// changeRequests records the change requests one list shows: their
	// contributors are read together (ShowChangeRequestsTogether).
	changeRequests *together
}

// ShowChangeRequestsTogether records that one list shows these change
// requests: the first read of any one's contributors reads all of theirs,
// however the list's resolution falls into batches.
func (rl *ReadLoaders) ShowChangeRequestsTogether(ids []string) { rl.changeRequests.add(ids) }

// newReadLoaders reads by level: spaces are the spaces' levels
// (ShowSpacesTogether), crs the change requests'.
func newReadLoaders(b batching, client *ent.Client, spaces, crs *together) *ReadLoaders {
	rl := &ReadLoaders{changeRequests: crs}
	*rl = ReadLoaders{
		changeRequests: crs,
		Contributors: mapLoader(b, byLevel(rl.changeRequests, "contributors", func(ctx context.Context, crIDs []string) (map[string][]Contribution, error) {
			return contributions(ctx, client, crIDs)
		})),
		SpaceRevisions: mapLoader(b, byLevel(spaces, "space revisions", func(ctx context.Context, spaceIDs []string) (map[string][]*ent.Revision, error) {
			rows, err := client.Revision.Query().Where(revision.SpaceIDIn(spaceIDs...)).
				Order(ent.Asc(revision.FieldCreatedAt), ent.Asc(revision.FieldID)).All(ctx)
			out := make(map[string][]*ent.Revision, len(spaceIDs))
			for _, r := range rows {
				out[r.SpaceID] = append(out[r.SpaceID], r)
			}
			return out, err
		})),
		MergedFrom: newLoader(b, func(ctx context.Context, revs []string) ([]*ent.ChangeRequest, error) {
			return client.ChangeRequest.Query().Where(changerequest.RevisionMergedIn(revs...)).All(ctx)
		}, func(cr *ent.ChangeRequest) string { return *cr.RevisionMerged }, ""),
	}
	return rl
}

// Reads are the request's ReadLoaders.
func (l *Loaders) Reads() *ReadLoaders { return l.reads }

// ByPath finds a page by its path (slugs from the root joined with "/").
func (t *Tree) ByPath(path string) (*ent.Page, bool) {
	for id, p := range t.paths {
		if p == path {
			return t.ByID[id], true
		}
	}
	return nil, false
}

// Contribution is one user's contributions of one kind to a change
// request: content edits (revisions) or comments.
type Contribution struct {
	UserID    string
	User      *ent.User // read with the contributions
	Comment   bool      // false: content edits
	Count     int
	UpdatedAt time.Time
}

// contributions reads the contributions to change requests: the authors of
// their edit and import revisions and of their comments, two statements
// for any number of change requests. Rows are summed here rather than by
// GROUP BY so that the latest time reads the same on both databases.
func contributions(ctx context.Context, client *ent.Client, crIDs []string) (map[string][]Contribution, error) {
	revs, err := client.Revision.Query().
		Where(revision.ChangeRequestIDIn(crIDs...), revision.TypeIn(revision.TypeEdits, revision.TypeImport), revision.CreatedByNEQ("")).
		Select(revision.FieldChangeRequestID, revision.FieldCreatedBy, revision.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, err
	}
	comments, err := client.Comment.Query().
		Where(comment.ChangeRequestIDIn(crIDs...), comment.PostedByNEQ("")).
		Select(comment.FieldChangeRequestID, comment.FieldPostedBy, comment.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, err
	}
	type key struct {
		cr, user string
		comment  bool
	}
	sums := map[key]*Contribution{}
	add := func(k key, at time.Time) {
		c := sums[k]
		if c == nil {
			c = &Contribution{UserID: k.user, Comment: k.comment}
			sums[k] = c
		}
		c.Count++
		if at.After(c.UpdatedAt) {
			c.UpdatedAt = at
		}
	}
	for _, r := range revs {
		add(key{r.ChangeRequestID, r.CreatedBy, false}, r.CreatedAt)
	}
	for _, c := range comments {
		if c.ChangeRequestID != nil {
			add(key{*c.ChangeRequestID, c.PostedBy, true}, c.CreatedAt)
		}
	}
	// The users come in the same read: a deleted user's contributions go.
	userIDs := map[string]bool{}
	for k := range sums {
		userIDs[k.user] = true
	}
	ids := make([]string, 0, len(userIDs))
	for id := range userIDs {
		ids = append(ids, id)
	}
	users := map[string]*ent.User{}
	if len(ids) > 0 {
		rows, err := client.User.Query().Where(user.IDIn(ids...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range rows {
			users[u.ID] = u
		}
	}
	out := make(map[string][]Contribution, len(crIDs))
	for k, c := range sums {
		if c.User = users[k.user]; c.User != nil {
			out[k.cr] = append(out[k.cr], *c)
		}
	}
	// Latest first; ties by user, edits before comments.
	for _, cs := range out {
		sort.Slice(cs, func(i, j int) bool {
			a, b := cs[i], cs[j]
			if !a.UpdatedAt.Equal(b.UpdatedAt) {
				return a.UpdatedAt.After(b.UpdatedAt)
			}
			if a.UserID != b.UserID {
				return a.UserID < b.UserID
			}
			return !a.Comment && b.Comment
		})
	}
	return out, nil
}
