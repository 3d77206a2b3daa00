package reader

import "net/http"

// Folio's own pages (sign-in, account: internal/account) look like the
// reader's and keep its policy: these are the reader's stylesheet, icon
// and headers for them.

// Stylesheet is the URL of the reader's stylesheet.
func Stylesheet() string { return assetURLs().Site }

// Icon is the URL of the reader's icon.
func Icon() string { return assetURLs().Icon }

// SetPageHeaders sets a reader page's Content-Type and
// Content-Security-Policy (no script; forms to Folio only).
func SetPageHeaders(w http.ResponseWriter, baseURL string) { setPageHeaders(w, baseURL) }
