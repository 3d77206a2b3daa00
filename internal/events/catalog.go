package events

import "sort"

// Action is an entry of the catalog: a stable id (stored on events and
// filtered by), a label (listOrganizationAuditEventActions) and the payload
// keys its events may carry.
type Action struct {
	ID, Label string
	keys      map[string]bool
	// Content: the action moves a space's content to a new revision (its
	// event carries SpaceID and payload revisionId), which
	// spaceContentUpdated announces.
	Content bool
}

func (a Action) allows(key string) bool {
	return key == "tokenId" || key == "oauthClientId" || a.keys[key]
}

var catalog = map[string]Action{}

// define adds an action to the catalog and returns its id; the ids of an
// area are declared together in catalog_<area>.go.
func define(id, label string, payloadKeys ...string) string {
	if _, dup := catalog[id]; dup {
		panic("events: action defined twice: " + id)
	}
	keys := make(map[string]bool, len(payloadKeys))
	for _, k := range payloadKeys {
		keys[k] = true
	}
	catalog[id] = Action{ID: id, Label: label, keys: keys}
	return id
}

// defineContent defines an action that moves a space's content to a new
// revision; its payload always allows revisionId.
func defineContent(id, label string, payloadKeys ...string) string {
	define(id, label, append(payloadKeys, "revisionId")...)
	a := catalog[id]
	a.Content = true
	catalog[id] = a
	return id
}

// Lookup finds an action of the catalog.
func Lookup(id string) (Action, bool) {
	a, ok := catalog[id]
	return a, ok
}

// Actions is the catalog, sorted by id.
func Actions() []Action {
	out := make([]Action, 0, len(catalog))
	for _, a := range catalog {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
