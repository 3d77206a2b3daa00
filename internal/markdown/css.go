package markdown

// BlocksCSS is the stylesheet of what RenderHTML emits for GitBook blocks
// and OpenAPI boxes: hints, tabs (which switch with CSS alone: a checked
// radio input shows the panel after its label), content-ref cards, embeds.
// Colours come from CSS variables the site's stylesheet may set
// (--folio-primary, --folio-border, --folio-muted-bg, and the text colours
// of HTTP methods --folio-get, -post, -put, -patch, -delete, which a dark
// theme sets lighter), with fallbacks readable on a light page.
const BlocksCSS = `.hint{border-left:4px solid var(--hint-color,#3b82f6);background:var(--folio-muted-bg,rgba(127,127,127,.08));padding:.5rem 1rem;margin:1rem 0;border-radius:4px}
.hint-info{--hint-color:#3b82f6}.hint-success{--hint-color:#16a34a}.hint-warning{--hint-color:#d97706}.hint-danger{--hint-color:#dc2626}
.tabs{display:flex;flex-wrap:wrap;margin:1rem 0;border:1px solid var(--folio-border,rgba(127,127,127,.3));border-radius:4px}
.tabs>.tab-input{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.tabs>.tab-label{order:0;padding:.4rem .9rem;cursor:pointer;border-bottom:2px solid transparent}
.tabs>.tab-input:checked+.tab-label{border-bottom-color:var(--folio-primary,#3b82f6);font-weight:600}
.tabs>.tab-input:focus-visible+.tab-label{outline:2px solid var(--folio-primary,#3b82f6)}
.tabs>.tab-panel{order:1;width:100%;display:none;padding:0 1rem;border-top:1px solid var(--folio-border,rgba(127,127,127,.3))}
.tabs>.tab-input:checked+.tab-label+.tab-panel{display:block}
.content-ref{margin:1rem 0}.content-ref-link{display:block;padding:.75rem 1rem;border:1px solid var(--folio-border,rgba(127,127,127,.3));border-radius:4px;text-decoration:none}
.embed{margin:1rem 0}.embed-caption{font-size:.9em;opacity:.8}
.openapi-operation,.openapi-schemas{margin:1rem 0;padding:.75rem 1rem;border:1px solid var(--folio-border,rgba(127,127,127,.3));border-radius:4px}
.openapi-method{display:inline-block;font-weight:700;font-family:monospace;padding:0 .4rem;border-radius:3px;background:var(--folio-muted-bg,rgba(127,127,127,.15))}
.openapi-method-get{color:var(--folio-get,#166534)}.openapi-method-post{color:var(--folio-post,#1d4ed8)}.openapi-method-put{color:var(--folio-put,#92400e)}.openapi-method-patch{color:var(--folio-patch,#7e22ce)}.openapi-method-delete{color:var(--folio-delete,#b91c1c)}
.openapi-section{font-size:1rem;margin:1rem 0 .5rem}
.openapi-params,.openapi-responses{border-collapse:collapse;width:100%}.openapi-params th,.openapi-params td,.openapi-responses th,.openapi-responses td{border-bottom:1px solid var(--folio-border,rgba(127,127,127,.3));padding:.3rem .5rem;text-align:left;vertical-align:top}
.align-left{text-align:left}.align-center{text-align:center}.align-right{text-align:right}
.openapi-schema-tree{list-style:none;padding-left:1rem}.openapi-required{color:var(--folio-delete,#b91c1c);font-size:.8em}.openapi-type{opacity:.75;font-family:monospace}
`
