package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
)

// Automatic persisted queries (Apollo's protocol: extensions.persistedQuery
// {version: 1, sha256Hash}) are gqlgen's extension.AutomaticPersistedQuery
// over this store. A client first sends only the hash; an unknown hash is
// answered PERSISTED_QUERY_NOT_FOUND, and the client sends the query with
// its hash, which is kept. The store is bounded in entries and in the size
// of each: at most MaxPersistedQueries × MaxPersistedQueryBytes (64 MiB).
const (
	// MaxPersistedQueries is how many persisted queries are kept, the
	// least recently used dropped first.
	MaxPersistedQueries = 1000
	// MaxPersistedQueryBytes is the longest query kept: a longer one still
	// runs when sent whole, and is asked for again each time.
	MaxPersistedQueryBytes = 64 << 10
)

// persistedQueries is the store of persisted queries by hash.
type persistedQueries struct {
	lru *lru.LRU[string]
}

var _ graphql.Cache[string] = persistedQueries{}

func newPersistedQueries() persistedQueries {
	return persistedQueries{lru: lru.New[string](MaxPersistedQueries)}
}

func (p persistedQueries) Get(ctx context.Context, hash string) (string, bool) {
	return p.lru.Get(ctx, hash)
}

// Add keeps query under hash unless it is longer than
// MaxPersistedQueryBytes. The extension adds a query after documentBounds
// accepted it and checked that hash is its hash.
func (p persistedQueries) Add(ctx context.Context, hash, query string) {
	if len(query) <= MaxPersistedQueryBytes {
		p.lru.Add(ctx, hash, query)
	}
}

// persistedHash is the hash a request's extensions name, if any.
func persistedHash(extensions map[string]any) string {
	pq, _ := extensions["persistedQuery"].(map[string]any)
	hash, _ := pq["sha256Hash"].(string)
	return hash
}
