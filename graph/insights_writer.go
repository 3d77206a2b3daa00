package graph

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/siteevent"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/metrics"
)

// The published reader records a page view for every page it serves (200s
// only: not 304s, not member previews) without making the page wait: views
// go into a bounded buffer that a writer drains in batches. The writer's
// goroutine runs only while views are pending and ends once the buffer is
// empty, so an idle server holds none. When the buffer is full (the
// database is slower than the traffic), views are dropped and counted in
// folio_site_events_dropped_total rather than holding pages or memory.

const (
	// pageViewBuffer bounds the views waiting to be written.
	pageViewBuffer = 4096
	// pageViewWindow is how long the writer gathers views before a batch.
	pageViewWindow = 200 * time.Millisecond
	// pageViewWriteTimeout bounds one batch's insert.
	pageViewWriteTimeout = 10 * time.Second
)

// siteEventWriter is the Resolver's buffer of page views (zero value ready).
type siteEventWriter struct {
	mu      sync.Mutex
	pending []pendingView
	running bool
	// writing counts batches taken from the buffer and not yet written;
	// written is signalled as each is (FlushSiteEvents waits on it).
	writing int
	written *sync.Cond
}

type pendingView struct {
	site *ent.Site
	ev   *insightEvent
}

// PageView is a page the published reader served.
type PageView struct {
	// Site is the published site (OrganizationID and ID are read).
	SiteID, OrganizationID string
	// URL is the page's address as requested (its query string is not
	// kept), Referrer the request's Referer header, Language its
	// Accept-Language header.
	URL, Referrer, Language string
	// Where the page is: "" for none.
	SectionID, SiteSpaceID, SpaceID, RevisionID, PageID string
	// Claims are the visitor's (visitor.Visitor.Claims).
	Claims map[string]any
}

// TrackPageView buffers a page view of a published site; it never blocks
// on the database.
func (r *Resolver) TrackPageView(v PageView) {
	u, err := url.Parse(v.URL)
	if err != nil || u.Host == "" {
		return
	}
	e := &insightEvent{typ: siteevent.TypePageView, at: clock.Now(), context: siteevent.DisplayContextSite,
		url: clipText(strip(u), maxEventURL), path: clipText(u.EscapedPath(), maxEventURL)}
	if e.path == "" {
		e.path = "/"
	}
	q := u.Query()
	for i, k := range []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"} {
		if s := q.Get(k); s != "" {
			e.utm[i] = ptr(clipText(s, maxEventID))
		}
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	e.section, e.siteSpace, e.space, e.revision, e.page = opt(v.SectionID), opt(v.SiteSpaceID), opt(v.SpaceID), opt(v.RevisionID), opt(v.PageID)
	// A referral is another host's: moving between pages of the site is
	// not one. Only the host is kept of a browser's Referer.
	if ref, err := url.Parse(v.Referrer); err == nil && ref.Host != "" && !strings.EqualFold(ref.Host, u.Host) {
		host := strings.ToLower(ref.Hostname())
		e.referrer, e.refDomain = ptr(clipText(ref.Scheme+"://"+host+"/", maxEventURL)), ptr(clipText(host, maxEventID))
	}
	if lang := firstLanguage(v.Language); lang != "" {
		e.language = &lang
	}
	e.authenticated, e.claims, _ = claimsOf(v.Claims)
	r.insights.add(r, pendingView{site: &ent.Site{ID: v.SiteID, OrganizationID: v.OrganizationID}, ev: e})
}

// firstLanguage is the first tag of an Accept-Language header.
func firstLanguage(h string) string {
	tag, _, _ := strings.Cut(h, ",")
	tag, _, _ = strings.Cut(tag, ";")
	tag = strings.TrimSpace(tag)
	if tag == "*" || len(tag) > 35 {
		return ""
	}
	return tag
}

func (w *siteEventWriter) add(r *Resolver, v pendingView) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) >= pageViewBuffer {
		metrics.SiteEventsDropped.WithLabelValues("buffer_full").Inc()
		return
	}
	w.pending = append(w.pending, v)
	if !w.running {
		w.running = true
		go w.run(r)
	}
}

// run writes batches while views are pending, then ends.
func (w *siteEventWriter) run(r *Resolver) {
	t := time.NewTimer(pageViewWindow)
	defer t.Stop()
	for {
		<-t.C
		batch := w.take(true)
		if batch == nil {
			return
		}
		w.write(r, batch)
		w.done()
		t.Reset(pageViewWindow)
	}
}

// take empties the buffer; with last set, an empty buffer ends the
// writer's run (under the same lock as add, so no view is left behind).
func (w *siteEventWriter) take(last bool) []pendingView {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		if last {
			w.running = false
		}
		return nil
	}
	batch := w.pending
	w.pending = nil
	w.writing++
	return batch
}

// done marks a taken batch written.
func (w *siteEventWriter) done() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writing--
	if w.written != nil {
		w.written.Broadcast()
	}
}

// write inserts a batch, MaxSiteEvents rows per statement. Page views are
// telemetry (events.ExemptInsights) and not the request's statements (the
// request has long been answered).
func (w *siteEventWriter) write(r *Resolver, batch []pendingView) {
	ctx, cancel := context.WithTimeout(context.Background(), pageViewWriteTimeout)
	defer cancel()
	ctx = db.Uncounted(events.Exempt(ctx, events.ExemptInsights))
	for len(batch) > 0 {
		n := min(len(batch), MaxSiteEvents)
		rows := make([]*ent.SiteEventCreate, n)
		for i, v := range batch[:n] {
			rows[i] = v.ev.create(r.Client.SiteEvent, v.site)
		}
		if err := r.Client.SiteEvent.CreateBulk(rows...).Exec(ctx); err != nil {
			metrics.SiteEventsDropped.WithLabelValues("write_failed").Add(float64(n))
			slog.Warn("site insights: page views not recorded", "count", n, "err", err)
		}
		batch = batch[n:]
	}
}

// FlushSiteEvents writes the page views buffered so far and waits for the
// batches being written: for a server's shutdown, and for tests that read
// what the reader recorded.
func (r *Resolver) FlushSiteEvents() {
	w := &r.insights
	if batch := w.take(false); batch != nil {
		w.write(r, batch)
		w.done()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written == nil {
		w.written = sync.NewCond(&w.mu)
	}
	for w.writing > 0 {
		w.written.Wait()
	}
}
