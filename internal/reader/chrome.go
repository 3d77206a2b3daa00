package reader

import (
	"bytes"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/published"
)

// link is a titled URL of the navigation.
type link struct {
	Title, URL string
	Active     bool
}

// tab is a section, or a group of sections shown as a menu.
type tab struct {
	link
	Items []link // a group's sections
}

// sideItem is a page of the sidebar. Only the current page's ancestors are
// open: the sidebar of a 5,000-page space lists its root pages and the
// path to the page read, not every page.
type sideItem struct {
	link
	External bool
	Open     bool
	More     bool // it has subpages, not listed while closed
	Children []*sideItem
}

// pageData is what the templates show.
type pageData struct {
	SiteTitle, Home string
	Title           string
	Assets          assets
	SiteStyle       string
	Description     string // the meta description
	Theme           string // light, dark, or "" to follow the system
	// ThemeToggles are the links that switch theme: one for a chosen
	// theme; while the page follows the system, one to each, and the
	// stylesheet shows the one away from the system's (no script).
	ThemeToggles []themeToggle
	Tabs         []tab
	Variants     []link
	SearchURL    string
	Query        string
	Robots       string

	Page     *published.Page
	Body     template.HTML
	Outline  []markdown.OutlineItem
	Sidebar  []*sideItem
	Crumbs   []link
	Prev     *link
	Next     *link
	Children []link

	Results []result
}

// themeToggle is a link to the theme To.
type themeToggle struct {
	link
	To string
}

// chrome is what every page of a site shows around its content: the
// site's title, tabs, variants, search and theme toggle.
func (h *Handler) chrome(r *http.Request, v *published.View, pl published.Place, theme string) *pageData {
	s := v.Site
	c := customizationOf(s)
	d := &pageData{SiteTitle: s.Title, Home: v.Prefix, Assets: assetURLs(), Theme: theme,
		SiteStyle: v.Prefix + "_style/" + siteStyleHash(c) + ".css", SearchURL: v.Prefix + "_search",
		Description: clip("The documentation of " + s.Title + ".")}
	if d.Theme == "" {
		d.Theme = siteTheme(c)
	}
	toggles := []string{"dark", "light"} // following the system: both
	switch d.Theme {
	case "light":
		toggles = toggles[:1]
	case "dark":
		toggles = toggles[1:]
	}
	for _, to := range toggles {
		d.ThemeToggles = append(d.ThemeToggles, themeToggle{To: to, link: link{Title: "Switch to " + to + " theme",
			URL: v.Prefix + "_theme?to=" + to + "&back=" + url.QueryEscape(r.URL.RequestURI())}})
	}
	// Sections as tabs, groups as menus; only the sections shown.
	for _, it := range s.Top {
		if it.Section != nil {
			if v.SectionShown(it.Section) {
				d.Tabs = append(d.Tabs, tab{link: link{Title: it.Section.Title, URL: v.SectionURL(it.Section), Active: it.Section == pl.Section}})
			}
			continue
		}
		g := tab{link: link{Title: it.Group.Title}}
		for _, sec := range it.Group.Sections {
			if v.SectionShown(sec) {
				g.Items = append(g.Items, link{Title: sec.Title, URL: v.SectionURL(sec), Active: sec == pl.Section})
				g.Active = g.Active || sec == pl.Section
			}
		}
		if len(g.Items) > 0 {
			d.Tabs = append(d.Tabs, g)
		}
	}
	if len(pl.Spaces) > 1 {
		for _, ss := range pl.Spaces {
			d.Variants = append(d.Variants, link{Title: ss.Title, URL: v.SpaceURL(pl.Section, ss), Active: ss == pl.SiteSpace})
		}
	}
	return d
}

// sidebar lists the listed pages: the root pages, and the subpages of the
// current page and of each page above it.
func sidebar(n *published.Nav, current *published.Page, base string) []*sideItem {
	open := map[string]bool{current.ID: true}
	for _, a := range n.Ancestors(current) {
		open[a.ID] = true
	}
	var build func(ps []*published.Page) []*sideItem
	build = func(ps []*published.Page) []*sideItem {
		var out []*sideItem
		for _, p := range ps {
			if !n.Listed(p) {
				continue
			}
			it := &sideItem{link: link{Title: p.Title, URL: base + p.Path, Active: p.ID == current.ID}}
			if p.Kind == "link" {
				it.URL, it.External = published.SafeHref(p.Href), true
				if it.URL == "" {
					continue
				}
			}
			if p.Emoji != "" {
				it.Title = p.Emoji + " " + p.Title
			}
			if open[p.ID] {
				it.Open = true
				it.Children = build(p.Children)
			} else {
				it.More = len(n.ListedOf(p.Children)) > 0
			}
			out = append(out, it)
		}
		return out
	}
	return build(n.Roots)
}

// write executes a template into a buffer first, so a failure is a clean
// 500 rather than half a page.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, name string, data *pageData) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		slog.ErrorContext(r.Context(), "internal error", "err", err)
		h.plain(w, http.StatusInternalServerError, "internal error")
		return
	}
	setPageHeaders(w, h.baseURL)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(buf.Bytes())
}

// customization is the part of a site's customization settings the reader
// shows. The settings were checked against the reference's schema when
// written: colors are #rgb or #rrggbb.
type customization struct {
	Styling struct {
		PrimaryColor colorPair `json:"primaryColor"`
		InfoColor    colorPair `json:"infoColor"`
		SuccessColor colorPair `json:"successColor"`
		WarningColor colorPair `json:"warningColor"`
		DangerColor  colorPair `json:"dangerColor"`
		Corners      string    `json:"corners"`
	} `json:"styling"`
	Themes struct {
		Default string `json:"default"`
	} `json:"themes"`
}

type colorPair struct{ Light, Dark string }

func customizationOf(s *published.Site) customization {
	var c customization
	_ = json.Unmarshal(s.Customization, &c)
	return c
}

// siteTheme is the theme a site shows visitors who chose none: light or
// dark as its customization says (themes.default), or "" — the system's
// preference (prefers-color-scheme) — when it says "system" or nothing
// the reader knows.
func siteTheme(c customization) string {
	switch c.Themes.Default {
	case "light", "dark":
		return c.Themes.Default
	}
	return ""
}

// themeOf is the theme the visitor chose (cookie), or "".
func themeOf(r *http.Request) string {
	if c, err := r.Cookie(themeCookie); err == nil && (c.Value == "light" || c.Value == "dark") {
		return c.Value
	}
	return ""
}

const themeCookie = "folio_theme"

// toggleTheme keeps the visitor's theme in a cookie of the site and goes
// back to the page the toggle was on: the theme works without script.
func (h *Handler) toggleTheme(w http.ResponseWriter, r *http.Request, prefix string) {
	to := r.URL.Query().Get("to")
	if to != "light" && to != "dark" {
		to = "light"
	}
	http.SetCookie(w, &http.Cookie{Name: themeCookie, Value: to, Path: prefix, MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || strings.HasPrefix(h.baseURL, "https://")})
	back := r.URL.Query().Get("back")
	// Only back into the site: never an open redirect.
	if !strings.HasPrefix(back, prefix) || strings.HasPrefix(back, "//") || strings.ContainsAny(back, "\\\r\n") {
		back = prefix
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, back, http.StatusSeeOther)
}
