package loader

import (
	"context"
	"sync"
)

// together records which objects one list shows side by side: the spaces
// of an organization or of a collection, and their revisions, the revision
// level of a tree. The first read of any of them reads all of them, once,
// and reads that arrive meanwhile wait for it. Without it, what a level costs depends on how the
// concurrent resolution of the list happens to fall into dataloader batches
// (13 to 27 statements for the same tree, run to run).
type together struct {
	mu sync.Mutex
	of map[string]*level
	// alone holds a level of its own for each object read without a list
	// (PerParent), so that reading it again reads nothing: a space read by
	// id whose pages each ask for their comments.
	alone map[string]*level
	// names holds, by object id, the users an object names (an author, a
	// resolver) when its read left them to be read on the first ask
	// (NameUsers).
	names map[string][]string
}

// A level is objects shown together and what has been read for all of
// them, by kind of read.
type level struct {
	ids   []string
	mu    sync.Mutex
	reads map[string]*levelRead
}

type levelRead struct {
	once sync.Once
	vals any // map[string]V: by revision id
	err  error
}

func (t *together) add(ids []string) {
	if len(ids) < 2 {
		return
	}
	l := &level{ids: ids, reads: map[string]*levelRead{}}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.of == nil {
		t.of = map[string]*level{}
	}
	for _, id := range ids {
		if _, ok := t.of[id]; !ok { // a revision keeps the first level it was shown in
			t.of[id] = l
		}
	}
}

func (t *together) levelOf(id string) *level {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.of[id]
}

// forgetReads drops what was read for every level, after a write.
func (t *together) forgetReads() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range []map[string]*level{t.of, t.alone} {
		for _, l := range m {
			l.mu.Lock()
			l.reads = map[string]*levelRead{}
			l.mu.Unlock()
		}
	}
}

// levelOrAlone is id's level, or a level of id alone when no list showed
// it.
func (t *together) levelOrAlone(id string) *level {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.of[id]; l != nil {
		return l
	}
	l := t.alone[id]
	if l == nil {
		if t.alone == nil {
			t.alone = map[string]*level{}
		}
		l = &level{ids: []string{id}, reads: map[string]*levelRead{}}
		t.alone[id] = l
	}
	return l
}

func (l *level) read(kind string) *levelRead {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reads[kind]
	if r == nil {
		r = &levelRead{}
		l.reads[kind] = r
	}
	return r
}

// byLevel makes a batch read by id read whole levels: keys of a
// level are served from one read of the level (made once, by the first
// batch that needs it), other keys are read together as before.
func byLevel[V any](t *together, kind string, fetch func(context.Context, []string) (map[string]V, error)) func(context.Context, []string) (map[string]V, error) {
	return func(ctx context.Context, keys []string) (map[string]V, error) {
		out := make(map[string]V, len(keys))
		var alone []string
		for _, k := range keys {
			l := t.levelOf(k)
			if l == nil {
				alone = append(alone, k)
				continue
			}
			r := l.read(kind)
			r.once.Do(func() { r.vals, r.err = fetch(ctx, l.ids) })
			if r.err != nil {
				return nil, r.err
			}
			if v, ok := r.vals.(map[string]V)[k]; ok {
				out[k] = v
			}
		}
		if len(alone) == 0 {
			return out, nil
		}
		vals, err := fetch(ctx, alone)
		if err != nil {
			return nil, err
		}
		for k, v := range vals {
			out[k] = v
		}
		return out, nil
	}
}
