package testkit

// bodySchemaExceptions lists the operations whose success bodies the
// contract check does not hold to the reference's schema, each with the
// reason: where GitBook's reference describes something other than what the
// seed specifies, the seed wins. Failures of these operations are still held
// to the error shape, and their tests check the seed's shape themselves.
// Keep this list short and every reason specific.
var bodySchemaExceptions = map[string]string{
	// The reference's Translation schema describes translation runs
	// (status, source, language, instructions, stats); the seed specifies
	// translation settings: object "translation-settings", id, title,
	// languages, createdAt, updatedAt, permissions {view, edit}, urls
	// {location}.
	"listTranslations":  "seed's translation settings, not the reference's translation runs",
	"createTranslation": "seed's translation settings, not the reference's translation runs",
	"getTranslation":    "seed's translation settings, not the reference's translation runs",
	"updateTranslation": "seed's translation settings, not the reference's translation runs",
	// The reference makes every page of a tree carry its whole document
	// (markdown or JSON); the seed lists the tree operations with metadata
	// and computed only. Folio's trees carry page metadata, and a page's
	// body comes from getPageById (format=markdown|document), so a tree costs
	// the same whatever the size of the pages.
	"listPages":                      "page trees without bodies",
	"listPagesInChangeRequest":       "page trees without bodies",
	"getCurrentRevision":             "page trees without bodies",
	"getRevisionOfChangeRequestById": "page trees without bodies",
	"getRevisionById":                "page trees without bodies",
	"listPagesInRevisionById":        "page trees without bodies",
	// A page read by id carries its own body; its subpages come as in a
	// tree, without theirs.
	"getPageById":                  "subpages without bodies",
	"getPageInChangeRequestById":   "subpages without bodies",
	"getPageInRevisionById":        "subpages without bodies",
	"getPageByPath":                "subpages without bodies",
	"getPageInChangeRequestByPath": "subpages without bodies",
	"getPageInRevisionByPath":      "subpages without bodies",
	// The reference's page_edited attributes are a oneOf of the document,
	// group and link attribute objects, none of which forbids the others'
	// properties: every attributes object (e.g. {title}) matches all three,
	// so no page_edited answer can pass a oneOf. TestChangeRequestChanges
	// checks the shape itself.
	"getRevisionSemanticChanges": "page_edited attributes match every branch of the reference's oneOf",
	"getChangeRequestChanges":    "page_edited attributes match every branch of the reference's oneOf",
	// Link locations embed pages as in a tree (without bodies).
	"listSpaceLinks":                 "pages in locations without bodies",
	"listPageLinksInSpace":           "pages in locations without bodies",
	"listPageLinksInChangeRequest":   "pages in locations without bodies",
	"listSpaceFileBacklinks":         "pages in locations without bodies",
	"listChangeRequestFileBacklinks": "pages in locations without bodies",
	"listChangeRequestLinks":         "pages in locations without bodies",
	"listSpacePageBacklinks":         "pages in locations without bodies",
	"listChangeRequestPageBacklinks": "pages in locations without bodies",
}

// bodySchemaException tells whether operationID's success body is exempt
// from the reference schema, and why.
func bodySchemaException(operationID string) (reason string, ok bool) {
	reason, ok = bodySchemaExceptions[operationID]
	return reason, ok
}
