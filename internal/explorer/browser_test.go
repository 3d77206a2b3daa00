package explorer_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/internal/testkit"
)

// chromium finds Debian's Chromium. CI must have it (.ci/run installs it);
// elsewhere the test says how to get it and skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "the explorer's browser test needs Chromium: apt-get install -y chromium"
	if os.Getenv("CI") != "" {
		t.Fatal(how + " (CI is set: .ci/run installs it)")
	}
	t.Skip("SKIPPED: " + how)
	return ""
}

// browserLog collects what the page did that the test forbids: requests to
// another origin, script exceptions and console errors (policy violations
// among them).
type browserLog struct {
	mu       sync.Mutex
	origin   string
	foreign  []string
	problems []string
	requests []string
}

func (l *browserLog) listen(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		u := e.Request.URL
		l.requests = append(l.requests, e.Request.Method+" "+u[:min(len(u), 100)])
		if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "data" && parsed.Scheme+"://"+parsed.Host != l.origin) {
			l.foreign = append(l.foreign, u)
		}
	case *runtime.EventExceptionThrown:
		l.problems = append(l.problems, "exception: "+exceptionText(e.ExceptionDetails))
	case *cdplog.EventEntryAdded:
		// The explorer's own first introspection, sent before the user
		// adds a token, is refused (401): that one is expected.
		if e.Entry.Level == cdplog.EntryLevelError && !(e.Entry.Source == cdplog.EntrySourceNetwork && strings.Contains(e.Entry.Text, "401")) {
			l.problems = append(l.problems, fmt.Sprintf("%s: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	}
}

// TestExplorerInBrowser drives the explorer as a newcomer would, in headless
// Chromium with no network but the server's: the page loads from the
// binary, the token goes into the Headers tab, and the viewer query answers
// with the user's id; nothing was fetched from elsewhere, nothing failed,
// and nothing was left in the browser's storage.
func TestExplorerInBrowser(t *testing.T) {
	bin := chromium(t)
	s := testkit.Start(t, "sqlite")
	user, _ := s.NewUser(t, "ada@example.com", "Acme")

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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	log := &browserLog{origin: s.URL}
	ctx, cancelBrowser := chromedp.NewContext(ctx, chromedp.WithListener(log.listen))
	defer cancelBrowser()
	defer func() {
		if t.Failed() {
			log.mu.Lock()
			defer log.mu.Unlock()
			t.Logf("requests:\n  %s\nproblems:\n  %s", strings.Join(log.requests, "\n  "), strings.Join(log.problems, "\n  "))
		}
	}()

	const (
		headersTab    = `//div[contains(@class,"graphiql-editor-tools")]//button[normalize-space(.)="Headers"]`
		headersEditor = `.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror textarea`
		queryEditor   = `.graphiql-query-editor .CodeMirror`
		execute       = `.graphiql-execute-button`
	)
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	step("open the explorer",
		chromedp.Navigate(s.URL+"/graphql"),
		chromedp.WaitVisible(chromedp.CSS(queryEditor)),
	)
	welcome, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+jsString(queryEditor)+`).CodeMirror.getValue()`))
	if err != nil || !strings.Contains(welcome, `{"Authorization": "Bearer folio_…"}`) {
		t.Fatalf("the default query does not say how to add the token (%v):\n%s", err, welcome)
	}
	step("paste the token into the Headers tab",
		chromedp.Click(headersTab),
		chromedp.Click(chromedp.CSS(headersEditor)),
		func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: fmt.Sprintf(`{"Authorization": "Bearer %s"}`, user.Token)})
			return chromedp.Void{}, err
		},
	)
	step("run the viewer query",
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+jsString(queryEditor)+`).CodeMirror.setValue("{ viewer { user { id } } }")`),
		chromedp.Click(chromedp.CSS(execute)),
	)
	response, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const v = document.querySelector(".graphiql-response .CodeMirror").CodeMirror.getValue();
		return v.includes('"viewer"') ? v : null;
	})()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("no answer in the result pane: %v", err)
	}
	if !strings.Contains(response, `"id": "`+user.ID+`"`) || strings.Contains(response, `"errors"`) {
		t.Fatalf("the result pane shows:\n%s", response)
	}

	stored, err := chromedp.Run(ctx, chromedp.Evaluate[int](`localStorage.length + sessionStorage.length`))
	if err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Errorf("the explorer left %d items in the browser's storage", stored)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.foreign) > 0 {
		t.Errorf("the page fetched from elsewhere than %s: %v", s.URL, log.foreign)
	}
	if len(log.problems) > 0 {
		t.Errorf("the page reported problems:\n  %s", strings.Join(log.problems, "\n  "))
	}
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}
