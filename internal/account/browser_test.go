package account_test

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

// TestSignInInBrowser walks a person's session in headless Chromium: the
// sign-in form typed into and submitted, the account page, the explorer
// answering the viewer query from the session alone (no pasted token), a
// preview of an unpublished site, and sign-out from the account page.
func TestSignInInBrowser(t *testing.T) {
	bin := testkit.Chromium(t, "the sign-in browser test")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "ada@example.com", "Acme")
		if err := s.App.SetPassword(context.Background(), u.Email, password); err != nil {
			t.Fatal(err)
		}
		name := s.MustGraphQL(t, u.Token, `{ viewer { user { displayName } } }`, nil)["viewer"].(map[string]any)["user"].(map[string]any)["displayName"].(string)
		space := s.MustGraphQL(t, u.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook"}) { id } }`,
			map[string]any{"org": org})["createSpace"].(map[string]any)["id"].(string)
		s.SeedPages(t, space, 2)
		site := s.MustGraphQL(t, u.Token, `mutation($org: ID!) { createSite(organization: $org, input: {title: "Docs"}) { id } }`,
			map[string]any{"org": org})["createSite"].(map[string]any)["id"].(string)
		s.MustGraphQL(t, u.Token, `mutation($site: ID!, $s: ID!) { addSiteSpace(site: $site, space: $s) { id } }`, map[string]any{"site": site, "s": space})

		// Pages answering 404 (the signed-out preview) and 401 (the explorer
		// signed out) log a network error on purpose.
		browser := testkit.NewBrowser(t, bin, s.URL, 120*time.Second, func(e *cdplog.Entry) bool {
			return e.Source == cdplog.EntrySourceNetwork && (strings.Contains(e.Text, "404") || strings.Contains(e.Text, "401"))
		})
		ctx := browser.Ctx
		step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
			t.Helper()
			if err := chromedp.Do(ctx, actions...); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		eval := func(js string) string {
			t.Helper()
			v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
			if err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			return v
		}
		typeInto := func(sel, text string) chromedp.Action[chromedp.Void] {
			return chromedp.Steps(chromedp.Click(chromedp.CSS(sel)), func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
				_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
				return chromedp.Void{}, err
			})
		}

		step("signed out, the unpublished site is not found",
			chromedp.Navigate(s.URL+"/s/"+site+"/"),
			chromedp.WaitReady(chromedp.CSS("body")),
		)
		if body := eval(`document.body.innerText`); strings.Contains(body, "Page 1") {
			t.Fatalf("a signed-out browser sees the unpublished site:\n%s", body)
		}

		step("sign in with the password",
			chromedp.Navigate(s.URL+"/sign-in"),
			chromedp.WaitVisible(chromedp.CSS("#email")),
			typeInto("#email", u.Email),
			typeInto("#password", password),
			chromedp.Click(chromedp.CSS(`form[action="/sign-in"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/sign-out"]`)),
		)
		if path := eval(`location.pathname`); path != "/account" {
			t.Fatalf("signed in, the browser is at %s", path)
		}
		if strong := eval(`document.querySelector("strong").innerText`); strong != name {
			t.Fatalf("the account page names %q, want %q", strong, name)
		}
		if cookies := eval(`document.cookie`); strings.Contains(cookies, "folio_session") {
			t.Fatalf("the session cookie is visible to scripts: %s", cookies)
		}

		const (
			queryEditor = `.graphiql-query-editor .CodeMirror`
			execute     = `.graphiql-execute-button`
		)
		step("run the viewer query in the explorer with no token",
			chromedp.Navigate(s.URL+"/graphql"),
			chromedp.WaitVisible(chromedp.CSS(queryEditor)),
			chromedp.Evaluate[chromedp.Void](`document.querySelector(`+jsString(queryEditor)+`).CodeMirror.setValue("{ viewer { user { displayName } } }")`),
			chromedp.Click(chromedp.CSS(execute)),
		)
		response, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
			const v = document.querySelector(".graphiql-response .CodeMirror").CodeMirror.getValue();
			return v.includes('"viewer"') || v.includes('"errors"') ? v : null;
		})()`, chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil {
			t.Fatalf("no answer in the result pane: %v", err)
		}
		if !strings.Contains(response, `"displayName": `+jsString(name)) || strings.Contains(response, `"errors"`) {
			t.Fatalf("the result pane shows:\n%s", response)
		}

		step("preview the unpublished site",
			chromedp.Navigate(s.URL+"/s/"+site+"/"),
			chromedp.WaitReady(chromedp.CSS("body")),
		)
		if body := eval(`document.body.innerText`); !strings.Contains(body, "Page 1") {
			t.Fatalf("the member does not see the unpublished site:\n%s", body)
		}

		step("sign out from the account page",
			chromedp.Navigate(s.URL+"/account"),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/sign-out"] button`)),
			chromedp.Click(chromedp.CSS(`form[action="/sign-out"] button`)),
			chromedp.Sleep(time.Second),
		)
		step("the account page sends a signed-out browser to sign in",
			chromedp.Navigate(s.URL+"/account"),
			chromedp.WaitVisible(chromedp.CSS("#email")),
		)
		if path := eval(`location.pathname`); path != "/sign-in" {
			t.Fatalf("signed out, /account leaves the browser at %s", path)
		}
		// The page's own fetch, with the browser's cookies (none left).
		step("ask GraphQL for the viewer", chromedp.Evaluate[chromedp.Void](`fetch("/graphql", {method: "POST", credentials: "same-origin",
			headers: {"Content-Type": "application/json"},
			body: JSON.stringify({query: "{ viewer { user { displayName } } }"})}).then(r => r.text()).then(v => { window.folioViewer = v; })`))
		viewer, err := chromedp.Run(ctx, chromedp.Poll[string](`window.folioViewer || null`, chromedp.WithPollingTimeout(10*time.Second)))
		if err != nil {
			t.Fatalf("no GraphQL answer: %v", err)
		}
		if strings.Contains(viewer, name) {
			t.Fatalf("signed out, GraphQL still knows the viewer: %s", viewer)
		}
		browser.Check(t)
	})
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }
