package graph

import (
	"fmt"
	"sort"

	entgo "entgo.io/ent"
)

// replay applies to dst (a builder made on a write's tx) the field sets and
// clears prepared on src: a builder made before the write and never saved,
// so that a resolver can check its input and build the change first, then
// save it inside r.write.
func replay(dst, src entgo.Mutation) error {
	for _, f := range src.Fields() {
		v, _ := src.Field(f)
		if err := dst.SetField(f, v); err != nil {
			return fmt.Errorf("replay %s: %w", f, err)
		}
	}
	for _, f := range src.AddedFields() {
		v, _ := src.AddedField(f)
		if err := dst.AddField(f, v); err != nil {
			return fmt.Errorf("replay %s: %w", f, err)
		}
	}
	for _, f := range src.ClearedFields() {
		if err := dst.ClearField(f); err != nil {
			return fmt.Errorf("replay %s: %w", f, err)
		}
	}
	// Edges with a field (organization_id, default_team_id) come with
	// their field; the builders replayed set no other edges.
	return nil
}

// changedFields names the fields m sets or clears (database names, sorted),
// for an event's "fields" payload; updated_at, which every update sets,
// is left out.
func changedFields(m entgo.Mutation) []string {
	seen := map[string]bool{}
	for _, f := range append(append(m.Fields(), m.AddedFields()...), m.ClearedFields()...) {
		if f != "updated_at" {
			seen[f] = true
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
