package loader

import (
	"context"
	"sync"

	"github.com/graph-gophers/dataloader/v7"
)

// Loader is a dataloader made on its first use. A request builds its set
// of loaders up front, and most requests touch two or three of the forty:
// making each only when asked keeps a small read from paying for the rest
// (they were a sixth of a space read's allocations). Its methods are
// dataloader's.
type Loader[V any] struct {
	once sync.Once
	make func() *dataloader.Loader[string, V]
	l    *dataloader.Loader[string, V]
}

func lazily[V any](make func() *dataloader.Loader[string, V]) *Loader[V] {
	return &Loader[V]{make: make}
}

func (z *Loader[V]) get() *dataloader.Loader[string, V] {
	z.once.Do(func() { z.l = z.make() })
	return z.l
}

// Load queues key and returns a thunk that waits for its batch.
func (z *Loader[V]) Load(ctx context.Context, key string) dataloader.Thunk[V] {
	return z.get().Load(ctx, key)
}

// LoadMany queues keys and returns a thunk that waits for their batches.
func (z *Loader[V]) LoadMany(ctx context.Context, keys []string) dataloader.ThunkMany[V] {
	return z.get().LoadMany(ctx, keys)
}

// Prime caches value for key unless key is cached already.
func (z *Loader[V]) Prime(ctx context.Context, key string, value V) dataloader.Interface[string, V] {
	return z.get().Prime(ctx, key, value)
}

// Clear forgets key.
func (z *Loader[V]) Clear(ctx context.Context, key string) dataloader.Interface[string, V] {
	return z.get().Clear(ctx, key)
}
