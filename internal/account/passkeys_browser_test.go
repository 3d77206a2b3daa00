package account_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/passkey"
	"github.com/folio/folio/internal/testkit"
)

// TestPasskeyInBrowser adds a passkey in headless Chromium, signs in
// with it alone, then requires it after the password and signs in with
// both: the account page's script and the browser's own WebAuthn
// (a DevTools virtual authenticator standing in for the device: a passkey
// kept on it, user verification that succeeds), under the pages' policy.
func TestPasskeyInBrowser(t *testing.T) {
	bin := testkit.Chromium(t, "the passkey browser test")
	// A passkey's relying party is a domain name: localhost, not 127.0.0.1.
	testkit.ForEachDBOnLocalhost(t, func(t *testing.T, s *testkit.Server) {
		u := newUserWithPassword(t, s, "ada@example.com")
		browser := testkit.NewBrowser(t, bin, s.URL, 120*time.Second, nil)
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

		step("open the sign-in page", chromedp.Navigate(s.URL+"/sign-in"), chromedp.WaitVisible(chromedp.CSS("#email")))
		if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			t.Fatalf("WebAuthn.enable: %v", err)
		}
		device, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
		if err != nil {
			t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
		}

		step("sign in with the password",
			typeInto("#email", u.Email),
			typeInto("#password", password),
			chromedp.Click(chromedp.CSS(`form[action="/sign-in"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/sign-out"]`)),
		)
		step("add a passkey on the account page",
			chromedp.WaitVisible(chromedp.CSS("#passkey-add")),
			typeInto("#passkey-name", "Chromium"),
			chromedp.Click(chromedp.CSS("#passkey-add")),
		)
		listed, err := waitFor(ctx, `(() => {
			const cell = document.querySelector("#passkeys tbody td");
			const error = document.getElementById("passkey-error");
			if (error && !error.hidden) return "error: " + error.textContent;
			return cell ? cell.innerText : "";
		})()`)
		if err != nil || listed != "Chromium" {
			t.Fatalf("the account page lists %q (%v)", listed, err)
		}
		creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: device.AuthenticatorID})
		if err != nil || len(creds.Credentials) != 1 || !creds.Credentials[0].IsResidentCredential || creds.Credentials[0].RpID != "localhost" {
			t.Fatalf("the authenticator holds %+v (%v)", creds, err)
		}
		k := s.Client().Passkey.Query().Where(passkey.UserID(u.ID)).OnlyX(context.Background())
		if k.Name != "Chromium" || len(k.Transports) == 0 {
			t.Fatalf("%+v", k)
		}

		step("sign out",
			chromedp.Click(chromedp.CSS(`form[action="/sign-out"] button`)),
			chromedp.WaitVisible(chromedp.CSS("#email")),
		)
		step("sign in with the passkey alone",
			chromedp.WaitVisible(chromedp.CSS("#passkey-sign-in")),
			chromedp.Click(chromedp.CSS("#passkey-sign-in")),
		)
		at, err := waitFor(ctx, `(() => {
			const error = document.getElementById("passkey-error");
			if (error && !error.hidden) return "error: " + error.textContent;
			return document.querySelector('form[action="/sign-out"]') ? location.pathname : "";
		})()`)
		if err != nil || at != "/account" {
			t.Fatalf("after the passkey, the browser is at %q (%v)", at, err)
		}
		if body := eval(`document.body.innerText`); !strings.Contains(body, u.Email) || !strings.Contains(body, "Chromium") {
			t.Fatalf("the account page shows:\n%s", body)
		}
		evs := s.Client().Event.Query().Where(event.Action("user.signed_in"), event.TargetID(u.ID)).AllX(context.Background())
		if len(evs) != 2 || evs[1].Payload["method"] != "passkey" {
			t.Fatalf("sign-ins: %v", evs)
		}

		step("require the passkey after the password",
			chromedp.Click(chromedp.CSS(`form[action="/account/passkey-required"] button`)),
			chromedp.WaitReady(chromedp.CSS(`form[action="/account/passkey-required"] input[value="off"]`)),
			chromedp.Click(chromedp.CSS(`form[action="/sign-out"] button`)),
			chromedp.WaitVisible(chromedp.CSS("#email")),
		)
		step("the password leads to the passkey step",
			typeInto("#email", u.Email),
			typeInto("#password", password),
			chromedp.Click(chromedp.CSS(`form[action="/sign-in"] button[type=submit]`)),
		)
		if _, err := waitFor(ctx, `location.pathname === "/sign-in/passkey" && !document.getElementById("passkey-sign-in").hidden ? "ready" : ""`); err != nil {
			t.Fatalf("after the password, the browser is at %s (%v)", eval(`location.pathname`), err)
		}
		step("finish with the passkey", chromedp.Click(chromedp.CSS("#passkey-sign-in")))
		if at, err := waitFor(ctx, `document.querySelector('form[action="/sign-out"]') ? location.pathname : ""`); err != nil || at != "/account" {
			t.Fatalf("after the passkey step, the browser is at %q (%v)", at, err)
		}
		evs = s.Client().Event.Query().Where(event.Action("user.signed_in"), event.TargetID(u.ID)).AllX(context.Background())
		if len(evs) != 3 || evs[2].Payload["method"] != "password+passkey" {
			t.Fatalf("sign-ins: %v", evs)
		}
		browser.Check(t)
	})
}

// waitFor evaluates js until it answers a non-empty string, through the
// page navigations the script makes (an evaluation cut short by one is
// tried again), for at most 20 seconds.
func waitFor(ctx context.Context, js string) (string, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err == nil && v != "" {
			return v, nil
		}
		if time.Now().After(deadline) {
			return v, fmt.Errorf("nothing after 20s (last error: %v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
