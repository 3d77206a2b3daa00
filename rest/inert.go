package rest

import (
	"mime"
	"net/http"
	"strings"
)

// FileCSP is the policy of bytes users put in Folio (uploaded files,
// generated downloads): opened directly in a browser, they run as a
// sandboxed document of no origin, with no script, plugin, form or
// subresource, and no site may frame them.
const FileCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'"

// inertFile sets the headers that keep a stored file from running on
// Folio's origin: its declared type, never sniffed (nosniff is set for
// every answer), the sandboxing policy, and Content-Disposition: only
// passive types a browser merely displays (raster images, audio, video,
// plain text) are shown inline; anything else (HTML, SVG, XML, scripts, PDF,
// types Folio does not know) is an attachment, downloaded, never rendered.
func inertFile(w http.ResponseWriter, contentType, name string) {
	h := w.Header()
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		contentType, media = "application/octet-stream", "application/octet-stream"
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Security-Policy", FileCSP)
	disposition := "attachment"
	if passive(media) {
		disposition = "inline"
	}
	if d := mime.FormatMediaType(disposition, map[string]string{"filename": name}); d != "" {
		disposition = d
	}
	h.Set("Content-Disposition", disposition)
}

// passive tells whether a browser only displays media, never runs it.
func passive(media string) bool {
	switch media {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "text/plain":
		return true
	}
	return strings.HasPrefix(media, "audio/") || strings.HasPrefix(media, "video/")
}
