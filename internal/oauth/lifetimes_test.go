package oauth_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// TestOAuthLifetimes moves the clock: a code lasts a minute, an access
// token an hour (the refresh token renews it), a refresh token 30 days; the
// purge then deletes what ended.
func TestOAuthLifetimes(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		t.Cleanup(clock.Reset)
		ctx := context.Background()
		_, cookie := newUser(t, s, "alice@example.com")
		cb := newCallback(t)
		clientID := mustRegister(t, s, "GitBook CLI", "http://127.0.0.1/callback")

		verifier, challenge := pkce()
		code := authorize(t, s, cb, cookie, clientID, challenge, "s")
		clock.Advance(61 * time.Second)
		oauthError(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier), 400, "invalid_grant")

		verifier, challenge = pkce()
		code = authorize(t, s, cb, cookie, clientID, challenge, "s")
		access, refreshToken := tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
		clock.Advance(time.Hour + time.Minute)
		if st := userStatus(t, s, access); st != 401 {
			t.Fatalf("access token after an hour: %d", st)
		}
		access, refreshToken = tokens(t, refresh(t, s, clientID, refreshToken))
		if st := userStatus(t, s, access); st != 200 {
			t.Fatalf("renewed access token: %d", st)
		}
		clock.Advance(721 * time.Hour)
		oauthError(t, refresh(t, s, clientID, refreshToken), 400, "invalid_grant")

		if err := s.App.Resolver.PurgeEndedSessions(ctx); err != nil {
			t.Fatal(err)
		}
		if n := s.Client().OAuthRefreshToken.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d refresh tokens after the purge", n)
		}
		if n := s.Client().APIToken.Query().Where(apitoken.OauthGrantIDNotNil()).CountX(ctx); n != 0 {
			t.Fatalf("%d access tokens after the purge", n)
		}
		// The unused code's grant is gone, and the one left with no
		// refresh token.
		if n := s.Client().OAuthGrant.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d grants after the purge", n)
		}
	})
}
