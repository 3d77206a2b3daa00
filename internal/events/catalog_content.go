package events

// Content: what is made from a space's or change request's content
// (content edits themselves are space.content_updated and
// change_request.content_updated).
var (
	PDFExported = define("pdf.exported", "PDF exported", "downloadId", "pageId", "only")
)
