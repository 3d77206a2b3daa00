package testkit

import (
	"context"
	"fmt"
	"github.com/folio/folio/internal/skiplog"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium finds Debian's Chromium for a browser test of what. CI must
// have it (.ci/run installs it); elsewhere the test says how to get it and
// skips.
func Chromium(t *testing.T, what string) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	how := "needs Chromium: apt-get install -y chromium"
	if os.Getenv("CI") != "" {
		t.Fatal(what + " " + how + " (CI is set: .ci/run installs it)")
	}
	skiplog.Skip(t, what, how)
	return ""
}

// Browser is a headless Chromium (bin) for one test, which may reach only
// origin, and the log of what its pages did that tests forbid: requests to
// another origin, script exceptions, console errors (policy violations
// among them). Expected tells the console errors a test causes on purpose.
type Browser struct {
	Ctx      context.Context
	origin   string
	expected func(*cdplog.Entry) bool

	mu                          sync.Mutex
	requests, foreign, problems []string
}

// NewBrowser starts the browser for the test's lifetime, at most timeout.
func NewBrowser(t *testing.T, bin, origin string, timeout time.Duration, expected func(*cdplog.Entry) bool) *Browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// The test network refuses Chromium's own background connections.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	b := &Browser{origin: origin, expected: expected}
	ctx, cancelBrowser := chromedp.NewContext(ctx, chromedp.WithListener(b.listen))
	b.Ctx = ctx
	t.Cleanup(func() {
		if t.Failed() {
			b.mu.Lock()
			t.Logf("the browser's requests:\n  %s", strings.Join(b.requests, "\n  "))
			b.mu.Unlock()
		}
		cancelBrowser()
		cancelAlloc()
		cancel()
	})
	return b
}

func (b *Browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		u := e.Request.URL
		b.requests = append(b.requests, e.Request.Method+" "+u[:min(len(u), 100)])
		if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "data" && parsed.Scheme+"://"+parsed.Host != b.origin) {
			b.foreign = append(b.foreign, u)
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+exceptionText(e.ExceptionDetails))
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError && (b.expected == nil || !b.expected(e.Entry)) {
			b.problems = append(b.problems, fmt.Sprintf("%s: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	}
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// Check fails the test for what the pages did that tests forbid. A failed
// test logs the requests the browser made when it ends.
func (b *Browser) Check(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.foreign) > 0 {
		t.Errorf("the pages fetched from elsewhere than %s: %v", b.origin, b.foreign)
	}
	if len(b.problems) > 0 {
		t.Errorf("the pages reported problems:\n  %s", strings.Join(b.problems, "\n  "))
	}
}
