package graph

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/embedcache"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fetch"
)

// Embeds (getEmbedByUrlInSpace, Space.embed): a URL a page embeds, resolved
// through oEmbed discovery into what a renderer shows (a link card, or a
// sandboxed iframe). The page is fetched with Folio's guarded fetcher
// (internal/fetch: no private or reserved addresses unless
// FOLIO_ALLOW_PRIVATE_FETCH, bounded size, time and redirects), its
// `<link rel="alternate" type="application/json+oembed">` followed, and the
// answer kept in the database (EmbedCache) so that every instance shares it.

// Embed is GitBook's Embed: Type "link" (title, site, icon) or "rich" (with
// HTML: one sandboxed https iframe, nothing else).
type Embed struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	Site  string `json:"site"`
	Icon  string `json:"icon,omitempty"`
	HTML  string `json:"html,omitempty"`
}

// Embed types.
const (
	EmbedLink = "link"
	EmbedRich = "rich"
)

// Bounds of embeds.
const (
	// MaxEmbedURL is the longest URL resolved.
	MaxEmbedURL = 2048
	// EmbedTTL is how long a resolution is kept; EmbedFailureTTL how long
	// a URL that could not be read answers its plain link.
	EmbedTTL        = 24 * time.Hour
	EmbedFailureTTL = 10 * time.Minute
	// maxEmbedPage and maxOEmbed bound what is read of the page and of its
	// oEmbed answer; maxEmbedText a title or site name (longer is cut).
	maxEmbedPage = 512 << 10
	maxOEmbed    = 64 << 10
	maxEmbedText = 300
	// embedTimeout bounds each fetch of a resolution.
	embedTimeout = 10 * time.Second
)

// SpaceEmbed resolves rawURL for a page of space spaceID (the caller reads
// the space). A URL that is not absolute http(s), or whose host is private
// while private fetches are not allowed, is 400 naming url; a page that
// cannot be read is answered as a plain link.
func (r *Resolver) SpaceEmbed(ctx context.Context, spaceID, rawURL string) (*Embed, error) {
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	if len(rawURL) > MaxEmbedURL {
		return nil, apperr.InvalidField("url", "must be at most %d characters", MaxEmbedURL)
	}
	if err := fetch.CheckURL(rawURL); err != nil {
		return nil, apperr.InvalidField("url", "%s", err.Error())
	}
	sum := sha256.Sum256([]byte(rawURL))
	key := hex.EncodeToString(sum[:])
	now := clock.Now()
	if row, err := r.Client.EmbedCache.Query().Where(embedcache.ID(key), embedcache.ExpiresAtGT(now)).Only(ctx); err == nil {
		var e Embed
		if json.Unmarshal([]byte(row.Embed), &e) == nil && row.URL == rawURL {
			return &e, nil
		}
	} else if !ent.IsNotFound(err) {
		return nil, err
	}
	e, ttl, err := r.resolveEmbed(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return e, r.keepEmbed(ctx, key, rawURL, e, now, ttl)
}

// keepEmbed stores a resolution (replacing an expired one) and drops the
// expired rows: a cache fill, which records no event.
func (r *Resolver) keepEmbed(ctx context.Context, key, rawURL string, e *Embed, now time.Time, ttl time.Duration) error {
	ctx = events.Exempt(ctx, events.ExemptEmbeds)
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := r.Client.EmbedCache.Delete().Where(embedcache.Or(embedcache.ID(key), embedcache.ExpiresAtLTE(now))).Exec(ctx); err != nil {
		return err
	}
	err = r.Client.EmbedCache.Create().SetID(key).SetURL(rawURL).SetEmbed(string(b)).SetCreatedAt(now).
		SetExpiresAt(now.Add(ttl)).OnConflictColumns(embedcache.FieldID).UpdateNewValues().Exec(ctx)
	if err != nil && !isNoRowsErr(err) {
		return err
	}
	return nil
}

// isNoRowsErr is the "no rows" an upsert that changed nothing may report.
func isNoRowsErr(err error) bool { return err != nil && strings.Contains(err.Error(), "no rows") }

// resolveEmbed fetches and reads rawURL: the embed and how long to keep it.
func (r *Resolver) resolveEmbed(ctx context.Context, rawURL string) (*Embed, time.Duration, error) {
	u, _ := url.Parse(rawURL)
	link := &Embed{Type: EmbedLink, Title: rawURL, Site: u.Hostname()}
	f := r.Fetcher
	f.MaxBytes, f.Timeout = maxEmbedPage, embedTimeout
	res, err := f.Get(ctx, rawURL)
	if errors.Is(err, fetch.ErrPrivateAddress) {
		return nil, 0, apperr.InvalidField("url", "%s", err.Error())
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return link, EmbedFailureTTL, nil
	}
	page := readEmbedPage(res.Body, res.URL)
	if page.title != "" {
		link.Title = page.title
	}
	if page.site != "" {
		link.Site = page.site
	}
	link.Icon = page.icon
	if page.oembed == "" {
		return link, EmbedTTL, nil
	}
	f.MaxBytes = maxOEmbed
	ores, err := f.Get(ctx, page.oembed)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return link, EmbedTTL, nil
	}
	var o struct {
		Type         string `json:"type"`
		Title        string `json:"title"`
		ProviderName string `json:"provider_name"`
		HTML         string `json:"html"`
	}
	if json.Unmarshal(ores.Body, &o) != nil {
		return link, EmbedTTL, nil
	}
	if t := clip(o.Title); t != "" {
		link.Title = t
	}
	if s := clip(o.ProviderName); s != "" {
		link.Site = s
	}
	if o.Type == "rich" || o.Type == "video" {
		if h := SafeEmbedHTML(o.HTML); h != "" {
			link.Type, link.HTML = EmbedRich, h
		}
	}
	return link, EmbedTTL, nil
}

// embedPage is what an HTML page says of itself.
type embedPage struct{ title, site, icon, oembed string }

// readEmbedPage reads the head of an HTML page: its title (og:title, else
// <title>), site name (og:site_name), icon and oEmbed discovery link, the
// URLs made absolute against base and kept only when http(s).
func readEmbedPage(body []byte, base *url.URL) embedPage {
	var p embedPage
	z := html.NewTokenizer(bytes.NewReader(body))
	inTitle := false
	abs := func(ref string) string {
		u, err := base.Parse(strings.TrimSpace(ref))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || len(u.String()) > MaxEmbedURL {
			return ""
		}
		return u.String()
	}
	for {
		switch z.Next() {
		case html.ErrorToken:
			return p
		case html.TextToken:
			if inTitle && p.title == "" {
				p.title = clip(string(z.Text()))
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "title" {
				inTitle = false
			} else if string(name) == "head" {
				return p
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				attrs[string(k)] = string(v)
			}
			switch string(name) {
			case "title":
				inTitle = true
			case "meta":
				switch attrs["property"] {
				case "og:title":
					if t := clip(attrs["content"]); t != "" {
						p.title = t
					}
				case "og:site_name":
					p.site = clip(attrs["content"])
				}
			case "link":
				rel := strings.ToLower(attrs["rel"])
				switch {
				case rel == "alternate" && strings.EqualFold(attrs["type"], "application/json+oembed") && p.oembed == "":
					p.oembed = abs(attrs["href"])
				case (rel == "icon" || rel == "shortcut icon" || rel == "apple-touch-icon") && p.icon == "":
					p.icon = abs(attrs["href"])
				}
			case "body":
				return p
			}
		}
	}
}

// clip trims s and cuts it to maxEmbedText bytes on a rune boundary.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxEmbedText {
		return s
	}
	s = s[:maxEmbedText]
	for len(s) > 0 && !utf8RuneStart(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if len(s) > 0 {
		s = s[:len(s)-1]
	}
	return s
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// SafeEmbedHTML keeps of an oEmbed answer's HTML its first iframe, rebuilt:
// an https src, numeric width and height, a title, and a sandbox that lets
// the frame run its own scripts on its own origin only (no top navigation,
// no same-origin with the page showing it). Anything else (scripts, other
// elements, event handlers) is dropped; "" when there is no such iframe.
// Nothing the embedded site sends runs on Folio's origin.
func SafeEmbedHTML(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return ""
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "iframe" {
			continue
		}
		var b strings.Builder
		var frameSrc string
		kept := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch key := string(k); key {
			case "src":
				u, err := url.Parse(string(v))
				if err == nil && u.Scheme == "https" && u.Host != "" && len(v) <= MaxEmbedURL {
					frameSrc = u.String()
				}
			case "width", "height":
				if n, err := strconv.Atoi(strings.TrimSuffix(string(v), "px")); err == nil && n > 0 && n <= 4000 {
					kept[key] = strconv.Itoa(n)
				}
			case "title":
				kept[key] = clip(string(v))
			}
		}
		if frameSrc == "" {
			return ""
		}
		b.WriteString(`<iframe src="` + html.EscapeString(frameSrc) + `"`)
		for _, k := range []string{"width", "height", "title"} {
			if v, ok := kept[k]; ok {
				b.WriteString(" " + k + `="` + html.EscapeString(v) + `"`)
			}
		}
		b.WriteString(` sandbox="allow-scripts allow-popups allow-presentation" referrerpolicy="no-referrer" loading="lazy" allowfullscreen></iframe>`)
		return b.String()
	}
}

// SpaceEmbedObject is Space.embed.
func (r *Resolver) SpaceEmbedObject(ctx context.Context, spaceID, rawURL string) (*model.Embed, error) {
	e, err := r.SpaceEmbed(ctx, spaceID, rawURL)
	if err != nil {
		return nil, err
	}
	return &model.Embed{Type: e.Type, Title: e.Title, Site: e.Site, Icon: optional(e.Icon), HTML: optional(e.HTML)}, nil
}
