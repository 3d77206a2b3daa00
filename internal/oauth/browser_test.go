package oauth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/internal/testkit"
)

// TestConsentInBrowser signs in and consents in headless Chromium, as a
// person running `gitbook login` does: the authorization link sends the
// browser through the sign-in form to the consent page, whose Allow button
// lands on the tool's loopback callback with the code (the page's
// form-action lets that redirect through), and the code gives tokens.
func TestConsentInBrowser(t *testing.T) {
	bin := testkit.Chromium(t, "the OAuth consent browser test")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, _ := s.NewUser(t, "ada@example.com", "")
		if err := s.App.SetPassword(context.Background(), u.Email, password); err != nil {
			t.Fatal(err)
		}
		cb := newCallback(t)
		clientID := mustRegister(t, s, "GitBook CLI", "http://127.0.0.1/callback")
		verifier, challenge := pkce()

		browser := testkit.NewBrowser(t, bin, s.URL, 120*time.Second, nil)
		ctx := browser.Ctx
		step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
			t.Helper()
			if err := chromedp.Do(ctx, actions...); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		typeInto := func(sel, text string) chromedp.Action[chromedp.Void] {
			return chromedp.Steps(chromedp.Click(chromedp.CSS(sel)), func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
				_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
				return chromedp.Void{}, err
			})
		}

		step("the authorization link asks to sign in first, then shows the consent page",
			chromedp.Navigate(s.URL+authorizeQuery(clientID, cb.redirectURI(), challenge, "S256", "browser-state")),
			chromedp.WaitVisible(chromedp.CSS("#email")),
			typeInto("#email", u.Email),
			typeInto("#password", password),
			chromedp.Click(chromedp.CSS(`form[action="/sign-in"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)),
		)
		body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil || !strings.Contains(body, "GitBook CLI") || !strings.Contains(body, u.Email) {
			t.Fatalf("consent page: %v\n%s", err, body)
		}
		step("Allow", chromedp.Click(chromedp.CSS(`button[value="approve"]`)))
		// The callback is another origin: wait for it to be called rather
		// than asking the page, which is navigating away.
		got := cb.wait(t, 20*time.Second)
		if got.Get("state") != "browser-state" || got.Get("code") == "" || got.Get("error") != "" {
			t.Fatalf("callback got %v", got)
		}
		access, _ := tokens(t, exchange(t, s, clientID, got.Get("code"), cb.redirectURI(), verifier))
		if st := userStatus(t, s, access); st != 200 {
			t.Fatalf("access token: %d", st)
		}
	})
}
