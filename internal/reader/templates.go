package reader

import (
	"embed"
	"html/template"
)

//go:embed templates/*.html
var templateFiles embed.FS

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// templateSource is the templates' text, part of every ETag: a new release
// that shows pages differently is not answered 304.
func templateSource() string {
	b, _ := templateFiles.ReadFile("templates/site.html")
	return string(b)
}
