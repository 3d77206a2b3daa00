package loader

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/apperr"
)

// Parents names a kind of object that lists show side by side and under
// which a query nests more reads: a connection of each (a space's change
// requests, a comment's replies), a count of each, an author of each. What
// is read under one object of a list is read for the whole list at once,
// on the first read of any of them (PerParent), so a nested read costs the
// same statements for 1, 10 or 50 parents, and the same on every run:
// unlike a dataloader batch it does not hang on how many resolvers happen
// to queue their keys within the batch wait.
type Parents int

const (
	// Spaces (ShowSpacesTogether).
	Spaces Parents = iota
	// ChangeRequests (ShowChangeRequestsTogether).
	ChangeRequests
	// Comments and replies, whose reactions are keyed alike
	// (ShowCommentsTogether).
	Comments
	// Organizations shown by a list of organizations (primeOrganizations).
	Organizations
	// Teams shown by a list of teams (PrimeTeams).
	Teams
	// Members of organizations, keyed by MemberKey (primeMembers).
	Members
	// OpenAPISpecs shown by a list of specs.
	OpenAPISpecs
	// Collections shown by a list of collections (an organization's, a
	// collection's subcollections).
	Collections
	// Sites shown by a list of sites (their access lists).
	Sites

	numParents
)

// level is where the objects of kind `of` that lists show together are
// recorded. Spaces and comments keep the record their loaders had before
// (byLevel), so that those loaders and PerParent share one read per level.
func (l *Loaders) level(of Parents) *together {
	switch of {
	case Spaces:
		return &l.ContentLoaders.spacesTogether
	case Comments:
		return &l.CommentLoaders.together
	}
	return &l.levels[of]
}

// ShowParents records that one list shows these objects (by id) side by
// side: what PerParent reads under any of them is read for all of them.
// Lists call it with every object they answer, before any is resolved.
func (l *Loaders) ShowParents(of Parents, ids []string) { l.level(of).add(ids) }

// PerParent is what fetch reads for parent: the first call for any parent
// of a level (the objects a list shows, ShowParents) runs fetch once for
// every parent of the level, and calls for the others, concurrent or
// later, wait for that read and take their part of it. kind names what is
// read, with every argument that changes it (a connection's page and
// filters): calls of one kind must want the same thing of every parent.
// A parent no list showed is read alone, once per kind. A parent fetch
// says nothing of gets V's zero value: fetch must answer every parent it
// is given.
func PerParent[V any](ctx context.Context, of Parents, kind, parent string, fetch func(ctx context.Context, parents []string) (map[string]V, error)) (V, error) {
	var zero V
	r := For(ctx).level(of).levelOrAlone(parent)
	read := r.read(kind)
	read.once.Do(func() { read.vals, read.err = fetch(ctx, r.ids) })
	if read.err != nil {
		return zero, read.err
	}
	return read.vals.(map[string]V)[parent], nil
}

// NameUsers records the users each of some objects shown together names
// (its author, its resolver; names by object id), to be read on the first
// ask, for the whole level (UserNamedBy): for reads that find an object or
// a few, where reading users nobody asks for would cost a statement.
// Lists read their objects' users with them instead (PrimeUsers).
func (l *Loaders) NameUsers(of Parents, names map[string][]string) {
	t := l.level(of)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = map[string][]string{}
	}
	for id, users := range names {
		t.names[id] = users
	}
}

// UserNamedBy is user userID, named by object parent (its author, its
// resolver): when parent's read left its users to the first ask
// (NameUsers), the users of every object of its level are read then, in
// one statement; otherwise the user loader has them (PrimeUsers). A user
// who no longer exists answers not found.
func UserNamedBy(ctx context.Context, of Parents, parent, userID string) (*ent.User, error) {
	l := For(ctx)
	t := l.level(of)
	t.mu.Lock()
	_, named := t.names[parent]
	t.mu.Unlock()
	if !named {
		return l.UserByID.Load(ctx, userID)()
	}
	users, err := PerParent(ctx, of, "named users", parent, func(ctx context.Context, ids []string) (map[string]map[string]*ent.User, error) {
		t.mu.Lock()
		byObject := make(map[string][]string, len(ids))
		var all []string
		for _, id := range ids {
			byObject[id] = t.names[id]
			all = append(all, t.names[id]...)
		}
		t.mu.Unlock()
		found := map[string]*ent.User{}
		if want := dedupe(all); len(want) > 0 {
			rows, err := l.client.User.Query().Where(user.IDIn(want...)).All(ctx)
			if err != nil {
				return nil, err
			}
			for _, u := range rows {
				found[u.ID] = u
				l.UserByID.Prime(ctx, u.ID, u)
			}
		}
		out := make(map[string]map[string]*ent.User, len(ids))
		for id, us := range byObject {
			out[id] = map[string]*ent.User{}
			for _, u := range us {
				if found[u] != nil {
					out[id][u] = found[u]
				}
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	if u := users[userID]; u != nil {
		return u, nil
	}
	return nil, apperr.NotFoundf("user %s not found", userID)
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	var out []string
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ForgetReads drops what PerParent and the loaders that read by level have
// read, keeping which objects lists showed together: a GraphQL mutation
// runs it before each of an operation's mutations, so that what one
// mutation's answer read is read again, as written, by the next one's.
// (Revisions never change: their reads are kept.)
func (l *Loaders) ForgetReads() {
	for of := range numParents {
		l.level(of).forgetReads()
	}
}
