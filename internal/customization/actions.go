package customization

import "slices"

// GitBook 0.202.0 lists the page actions in `pageActions.items` (ordered,
// the source of truth); 0.143.2 spells five of them as booleans. Folio
// stores both and keeps them in line, so each client reads what the other
// wrote: a body that sets `items` sets the booleans from it; a body that
// sets booleans without `items` adds (at the end) or removes those actions.
var legacyActions = []struct{ object, field, item string }{
	{"pageActions", "externalAI", "external-ai"},
	{"pageActions", "markdown", "markdown"},
	{"pageActions", "mcp", "mcp"},
	{"pdf", "enabled", "pdf"},
	{"git", "showEditLink", "git"},
}

// alignPageActions brings doc's two spellings into line after patch was
// merged onto it. Values of the wrong type are left for validation to name.
func alignPageActions(doc, patch map[string]any) {
	pa, _ := doc["pageActions"].(map[string]any)
	if pa == nil {
		return
	}
	items, ok := pa["items"].([]any)
	if !ok {
		return
	}
	if pp, _ := patch["pageActions"].(map[string]any); pp != nil && pp["items"] != nil {
		for _, a := range legacyActions {
			if o, _ := doc[a.object].(map[string]any); o != nil {
				o[a.field] = slices.Contains(items, any(a.item))
			}
		}
		return
	}
	for _, a := range legacyActions {
		po, _ := patch[a.object].(map[string]any)
		on, ok := po[a.field].(bool)
		if !ok {
			continue
		}
		has := slices.Contains(items, any(a.item))
		switch {
		case on && !has:
			items = append(items, a.item)
		case !on && has:
			items = slices.DeleteFunc(items, func(v any) bool { return v == a.item })
		}
	}
	pa["items"] = items
}
