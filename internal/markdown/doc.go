// Package markdown is Folio's markdown engine: pure functions over the markdown
// text of a page. It knows nothing of HTTP, GraphQL or storage.
//
// Parsing is CommonMark plus the GitHub-flavoured extensions (tables,
// strikethrough, task lists, bare-URL autolinks), done by goldmark. Every
// function accepts any input and never fails or panics: whatever goldmark
// makes of the text is what they report.
//
// Line endings are normalised first (CRLF and lone CR become LF) and a leading
// UTF-8 byte-order mark is dropped, so Meta.Body and all returned text use LF.
// Every function except Slug strips a leading YAML frontmatter block the same
// way Parse does, so passing a whole page file or only Meta.Body gives the same
// result (and Links reports line numbers of the text it was given).
//
// GitBook's block syntax ({% hint %}, {% tabs %}/{% tab %}, {% content-ref %},
// {% embed %}, {% openapi-operation %}, {% openapi-schemas %}) is read by one
// goldmark extension (blocks.go) everywhere: ToDocument maps the blocks to
// the reference's document blocks and FromDocument writes them back as tags.
//
// For the published site, RenderHTML(src, HTMLOptions{Link, Image, Blocks,
// IDPrefix}) returns Rendered{HTML, Outline, Text}: sanitized HTML (Sanitize,
// one bluemonday policy), heading ids equal to Anchors, code highlighted with
// chroma classes (HighlightCSS(theme, scope) is their stylesheet) and the
// blocks styled by BlocksCSS. Blocks["openapi-operation"] and
// Blocks["openapi-schemas"] plug in the API reference renderer; without one
// they show DefaultOperationHTML / DefaultSchemasHTML.
package markdown
