package reader

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// compress gzips the reader's text answers (pages, stylesheets, sitemaps,
// robots.txt) for clients that accept it: a page's HTML, mostly its
// sidebar's repeated markup, compresses to a fifth or a quarter of it. The standard library's gzip is
// enough here; brotli would save a little more for a dependency.
//
// It decides when the headers are written, from the answer's Content-Type:
// images (the favicon) and answers without a body (304, HEAD) pass as they
// are. Every answer gets Vary: Accept-Encoding, so a cache never hands a
// gzipped page to a client that did not ask for one. A gzipped answer's
// ETag is made weak: its bytes are not the identity's. The reader compares
// If-None-Match weakly, so it still answers 304 to it.
func compress(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	cw := &gzipWriter{ResponseWriter: w, accepts: acceptsGzip(r.Header.Get("Accept-Encoding")), head: r.Method == http.MethodHead}
	return cw, cw.close
}

// acceptsGzip: gzip (or *) is listed in Accept-Encoding without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}

// compressible are the content types worth compressing.
func compressible(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	switch strings.TrimSpace(strings.ToLower(t)) {
	case "text/html", "text/css", "text/plain", "text/javascript", "application/javascript",
		"application/json", "application/xml", "image/svg+xml":
		return true
	}
	return false
}

var gzipPool = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(io.Discard, gzip.DefaultCompression); return w }}

type gzipWriter struct {
	http.ResponseWriter
	accepts     bool // the client accepts gzip
	head        bool
	wroteHeader bool
	gz          *gzip.Writer // nil while the answer passes uncompressed
}

func (w *gzipWriter) WriteHeader(status int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	h := w.Header()
	// One Vary line, Accept-Encoding added to what the handler varies on.
	vary := strings.Join(h.Values("Vary"), ", ")
	if vary == "" {
		vary = "Accept-Encoding"
	} else if !strings.Contains(strings.ToLower(vary), "accept-encoding") {
		vary += ", Accept-Encoding"
	}
	h.Set("Vary", vary)
	if w.accepts && compressible(h.Get("Content-Type")) && h.Get("Content-Encoding") == "" {
		if tag := h.Get("ETag"); strings.HasPrefix(tag, `"`) {
			h.Set("ETag", "W/"+tag)
		}
		bodyless := status == http.StatusNoContent || status == http.StatusNotModified || status < 200
		if !bodyless {
			h.Set("Content-Encoding", "gzip")
			h.Del("Content-Length")
			if !w.head {
				w.gz = gzipPool.Get().(*gzip.Writer)
				w.gz.Reset(w.ResponseWriter)
			}
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *gzipWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", http.DetectContentType(b))
		}
		w.WriteHeader(http.StatusOK)
	}
	if w.gz != nil {
		return w.gz.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is compressed so far.
func (w *gzipWriter) Flush() {
	if w.gz != nil {
		_ = w.gz.Flush()
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *gzipWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *gzipWriter) close() {
	if !w.wroteHeader {
		// A HEAD, or an empty answer: its headers are a GET's.
		w.WriteHeader(http.StatusOK)
	}
	if w.gz == nil {
		return
	}
	_ = w.gz.Close()
	w.gz.Reset(io.Discard)
	gzipPool.Put(w.gz)
	w.gz = nil
}
