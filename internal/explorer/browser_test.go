package explorer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/internal/testkit"
)

// TestExplorerInBrowser drives the explorer as a newcomer would, in headless
// Chromium with no network but the server's: the page loads from the
// binary, the token goes into the Headers tab, and the viewer query answers
// with the user's id; nothing was fetched from elsewhere, nothing failed,
// and nothing was left in the browser's storage.
func TestExplorerInBrowser(t *testing.T) {
	bin := testkit.Chromium(t, "the explorer's browser test")
	s := testkit.Start(t, "sqlite")
	user, _ := s.NewUser(t, "ada@example.com", "Acme")

	// The explorer's own first introspection, sent before the user adds a
	// token, is refused (401): that one is expected.
	browser := testkit.NewBrowser(t, bin, s.URL, 90*time.Second, func(e *cdplog.Entry) bool {
		return e.Source == cdplog.EntrySourceNetwork && strings.Contains(e.Text, "401")
	})
	ctx := browser.Ctx

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
	browser.Check(t)
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }
