package loader

import "context"

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
