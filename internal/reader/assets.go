package reader

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/published"
)

//go:embed assets/site.css assets/favicon.ico
var assetFiles embed.FS

// asset is one of Folio's stylesheets or its icon, served under a name
// that carries a hash of its bytes, so it can be cached for a year and
// never go stale.
type asset struct {
	name        string // site.<hash>.css
	contentType string
	bytes       []byte
}

// favicon is the icon of every published site (a 32x32 PNG in an ICO):
// linked from the pages by its hashed name, and at /favicon.ico of the
// base URL and of mapped hosts, where browsers look without a link.
var favicon []byte

var (
	assetsByName  = map[string]asset{}
	assetList     assets
	assetsVersion string // changes with any asset and with the templates
)

// assets are the URLs of the shared stylesheets and icon.
type assets struct{ Site, Code, Icon string }

func init() {
	sum := sha256.New()
	add := func(file string, b []byte) string {
		h := sha256.Sum256(b)
		base, ext, _ := strings.Cut(file, ".")
		name := base + "." + hex.EncodeToString(h[:])[:12] + "." + ext
		ct := "text/css; charset=utf-8"
		if ext == "ico" {
			ct = "image/x-icon"
		}
		assetsByName[name] = asset{name: name, contentType: ct, bytes: b}
		sum.Write(h[:])
		return AssetPrefix + name
	}
	site, err := assetFiles.ReadFile("assets/site.css")
	if err != nil {
		panic(err)
	}
	if favicon, err = assetFiles.ReadFile("assets/favicon.ico"); err != nil {
		panic(err)
	}
	assetList = assets{Site: add("site.css", site), Code: add("code.css", []byte(codeCSS())), Icon: add("favicon.ico", favicon)}
	sum.Write([]byte(templateSource()))
	assetsVersion = hex.EncodeToString(sum.Sum(nil))[:16]
}

func assetURLs() assets { return assetList }

// codeCSS is the stylesheet of what the markdown engine emits: GitBook
// blocks, and chroma's classes for the light theme, the dark one, and the
// system's when the visitor chose neither.
func codeCSS() string {
	// The dark styles do not style every token the light one does: a
	// token they leave out is reset first, or it keeps the light style's
	// colour (dark on dark). The reset's selector weighs more than the
	// light style's and less than the dark style's.
	reset := " .chroma span{color:inherit;background-color:transparent;font-weight:inherit;font-style:inherit}\n"
	return markdown.BlocksCSS + "pre.chroma{padding:.9rem 1rem}\n" + markdown.HighlightCSS("light", "") +
		":root[data-theme=dark]" + reset + markdown.HighlightCSS("dark", ":root[data-theme=dark]") +
		"@media (prefers-color-scheme:dark){\n:root:not([data-theme=light])" + reset +
		markdown.HighlightCSS("dark", ":root:not([data-theme=light])") + "}\n"
}

func serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := assetsByName[strings.TrimPrefix(r.URL.Path, AssetPrefix)]
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("not found\n"))
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.bytes)
	}
}

// serveFavicon answers /favicon.ico: the same icon under a name that does
// not change, so cached for a day only.
func serveFavicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/x-icon")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	if r.Method != http.MethodHead {
		_, _ = w.Write(favicon)
	}
}

// defaultPrimary is site.css's --primary.
const defaultPrimary = "#346ddb"

// siteStyle is a site's own stylesheet: its colors and corners as CSS
// variables over the shared stylesheet's.
func siteStyle(c customization) string {
	var b strings.Builder
	radius := map[string]string{"straight": "0", "circular": "1rem"}[c.Styling.Corners]
	if radius == "" {
		radius = ".375rem"
	}
	fmt.Fprintf(&b, ":root{--radius:%s}\n", radius)
	pair := func(theme string, pick func(colorPair) string) string {
		var s strings.Builder
		for _, v := range []struct {
			name string
			c    colorPair
		}{{"primary", c.Styling.PrimaryColor}, {"info", c.Styling.InfoColor}, {"success", c.Styling.SuccessColor},
			{"warning", c.Styling.WarningColor}, {"danger", c.Styling.DangerColor}} {
			if col := pick(v.c); validColor(col) {
				fmt.Fprintf(&s, "--%s:%s;", v.name, col)
			}
		}
		return s.String()
	}
	light := pair("light", func(p colorPair) string { return p.Light })
	dark := pair("dark", func(p colorPair) string { return p.Dark })
	// Links are the primary colour, made readable on each theme.
	link := func(col, ink string, backgrounds []string) string {
		if !validColor(col) {
			col = defaultPrimary
		}
		return "--link:" + readable(col, ink, backgrounds) + ";"
	}
	light += link(c.Styling.PrimaryColor.Light, lightInk, lightBackgrounds)
	dark += link(c.Styling.PrimaryColor.Dark, darkInk, darkBackgrounds)
	fmt.Fprintf(&b, ":root{%s}\n:root[data-theme=dark]{%s}\n", light, dark)
	fmt.Fprintf(&b, "@media (prefers-color-scheme:dark){:root:not([data-theme=light]){%s}}\n", dark)
	return b.String()
}

// validColor: #rgb or #rrggbb, as the schema requires; anything else never
// reaches a stylesheet.
func validColor(s string) bool {
	if len(s) != 4 && len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

func siteStyleHash(c customization) string {
	h := sha256.Sum256([]byte(siteStyle(c)))
	return hex.EncodeToString(h[:])[:12]
}

// siteStyle serves a site's stylesheet at _style/<hash>.css; another hash
// (an old page) gets the current one, uncached.
func (h *Handler) siteStyle(w http.ResponseWriter, r *http.Request, s *published.Site, name string) {
	c := customizationOf(s)
	css := siteStyle(c)
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	if name == siteStyleHash(c)+".css" {
		cc := "public, max-age=31536000, immutable"
		if s.Visibility != "public" {
			cc = "private, max-age=31536000, immutable"
		}
		w.Header().Set("Cache-Control", cc)
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	_, _ = w.Write([]byte(css))
}
