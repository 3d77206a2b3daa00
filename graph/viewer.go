package graph

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/events"
)

// Authenticate is the middleware of /v1: it resolves the bearer token to a
// user (401 otherwise, in the shape of the API asked: apperr.Write) and
// attaches the request's dataloaders. Without an Authorization header, a
// live session cookie (sessions.go) authenticates instead, its writes
// from Folio's own origin only (CheckSameOrigin) and its events with the
// source ui.
func (r *Resolver) Authenticate(next http.Handler) http.Handler {
	return r.authenticate(next, false)
}

// AuthenticateOptional is the middleware of /graphql: Authenticate, except
// that a request with no Authorization header at all runs as an anonymous
// caller, with no viewer and the loaders a published-site reader gets
// (ReaderContext). Fields that need a viewer then refuse it with
// UNAUTHENTICATED (viewerUser), and everything else answers as for a
// stranger. A header that does not carry a known token stays a 401: a
// client that meant to authenticate learns that it did not.
func (r *Resolver) AuthenticateOptional(next http.Handler) http.Handler {
	return r.authenticate(next, true)
}

func (r *Resolver) authenticate(next http.Handler, anonymous bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") == "" {
			// A browser signed in to Folio's pages: the session cookie
			// stands for a token. A write it carries must come from
			// Folio's own origin, checked before the body is read.
			if secret := r.SessionSecret(req); secret != "" {
				if err := r.CheckSameOrigin(req); err != nil {
					apperr.Write(w, req, err)
					return
				}
				ctx, err := r.sessionViewerContext(req.Context(), secret)
				if err == nil {
					next.ServeHTTP(w, req.WithContext(ctx))
					return
				}
				if !errors.Is(err, errNoSession) {
					apperr.Write(w, req, err)
					return
				}
				// An ended session is no session.
			}
			if anonymous {
				next.ServeHTTP(w, req.WithContext(r.ReaderContext(req.Context())))
				return
			}
		}
		token := auth.BearerToken(req)
		if token == "" {
			apperr.Write(w, req, apperr.Unauthenticatedf("missing API token: send Authorization: Bearer <token>"))
			return
		}
		ctx, err := r.viewerContext(req.Context(), token)
		if err != nil {
			apperr.Write(w, req, err)
			return
		}
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// viewerContext is ctx for the user whose API token token is: a request's
// (authenticate) or a WebSocket's (connection_init). One statement: the
// user whose token it is (a subquery on the token's unique hash), not the
// token and then its user. It brings the user's memberships along (the
// caller's role is what nearly every read asks next).
func (r *Resolver) viewerContext(ctx context.Context, token string) (context.Context, error) {
	if IsSiteToken(token) { // no user: a published site's renderer (urls_token.go)
		return r.siteTokenContext(ctx, token)
	}
	hash := auth.HashToken(token)
	now := clock.Now()
	u, err := r.Client.User.Query().
		Where(user.HasTokensWith(apitoken.Hash(hash), apitoken.Or(apitoken.ExpiresAtIsNil(), apitoken.ExpiresAtGT(now)))).
		Modify(loader.WithViewerMemberships, withTokenID(hash, now.Add(-lastUseTouchEvery))).
		Only(ctx)
	if ent.IsNotFound(err) {
		return ctx, apperr.Unauthenticatedf("unknown API token")
	}
	if err != nil {
		return ctx, err
	}
	if id := tokenIDOf(u); id != "" && tokenStale(u) {
		// Telemetry like a session's last_seen_at: at most once a minute,
		// by the clock, so statement counts leave it out (db.Uncounted).
		err := r.Client.APIToken.UpdateOneID(id).SetLastUsedAt(now).Exec(db.Uncounted(events.Exempt(ctx, events.ExemptTokenUse)))
		if err != nil && !ent.IsNotFound(err) {
			return ctx, err
		}
	}
	ctx, err = r.userContext(ctx, u, events.SourceAPI, tokenIDOf(u))
	if client := columnString(u, tokenClientColumn); client != "" && err == nil {
		// A token an OAuth client obtained: its writes say which client.
		o := events.OriginOf(ctx)
		o.ClientID = client
		ctx = events.WithOrigin(ctx, o)
	}
	return ctx, err
}

// userContext is ctx for authenticated user u (read with its memberships):
// the viewer, its loaders, and the origin its writes' events record.
func (r *Resolver) userContext(ctx context.Context, u *ent.User, source, tokenID string) (context.Context, error) {
	ctx, err := loader.Authenticated(auth.WithViewer(ctx, u.ID), r.Client, u)
	if err != nil {
		return ctx, err
	}
	return events.WithOrigin(ctx, events.Origin{
		Source:  source,
		Actor:   events.Actor{Type: events.ActorUser, ID: u.ID, Label: u.DisplayName},
		TokenID: tokenID,
	}), nil
}

// tokenIDColumn is the column withTokenID adds, tokenStaleColumn whether
// the token's last_used_at needs a touch.
const (
	tokenIDColumn    = "auth_token_id"
	tokenStaleColumn = "auth_token_stale"
	// tokenClientColumn is the OAuth client the token was issued to ("").
	tokenClientColumn = "auth_token_client"
)

// withTokenID adds to the authentication query the id of the token it
// found the user by (its events carry it as tokenId) and whether its last
// use is older than staleBefore, in the same statement.
func withTokenID(hash string, staleBefore time.Time) func(*entsql.Selector) {
	return func(s *entsql.Selector) {
		s.AppendSelectExprAs(entsql.ExprFunc(func(b *entsql.Builder) {
			b.WriteString("(SELECT " + apitoken.FieldID + " FROM " + apitoken.Table + " WHERE " + apitoken.FieldHash + " = ").Arg(hash).WriteString(")")
		}), tokenIDColumn)
		s.AppendSelectExprAs(entsql.ExprFunc(func(b *entsql.Builder) {
			b.WriteString("(SELECT CASE WHEN " + apitoken.FieldLastUsedAt + " IS NULL OR " + apitoken.FieldLastUsedAt + " < ").Arg(staleBefore).
				WriteString(" THEN 1 ELSE 0 END FROM " + apitoken.Table + " WHERE " + apitoken.FieldHash + " = ").Arg(hash).WriteString(")")
		}), tokenStaleColumn)
		s.AppendSelectExprAs(entsql.ExprFunc(func(b *entsql.Builder) {
			// COALESCE: SQLite cannot say how to scan a NULL of an
			// expression.
			b.WriteString("(SELECT COALESCE(" + apitoken.FieldOauthClientID + ", '') FROM " + apitoken.Table + " WHERE " + apitoken.FieldHash + " = ").Arg(hash).WriteString(")")
		}), tokenClientColumn)
	}
}

// tokenStale reads the column withTokenID added.
func tokenStale(u *ent.User) bool {
	switch v, _ := u.Value(tokenStaleColumn); v := v.(type) {
	case int64:
		return v == 1
	case bool:
		return v
	case []byte:
		return string(v) == "1"
	}
	return false
}

// tokenIDOf reads the column withTokenID added.
func tokenIDOf(u *ent.User) string { return columnString(u, tokenIDColumn) }

// columnString reads a text column withTokenID added ("" for NULL).
func columnString(u *ent.User, column string) string {
	switch v, _ := u.Value(column); v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// FreshLoaders gives the rest of a request new loaders for the same caller,
// its memberships read again: an operation of a batch that follows a
// mutation must not read what the loaders cached before it (one statement
// for an authenticated caller, none for an anonymous one).
func (r *Resolver) FreshLoaders(ctx context.Context) (context.Context, error) {
	id := auth.ViewerID(ctx)
	if id == "" {
		return r.ReaderContext(ctx), nil
	}
	u, err := r.Client.User.Query().Where(user.ID(id)).Modify(loader.WithViewerMemberships).Only(ctx)
	if ent.IsNotFound(err) { // deleted by an earlier operation of the batch
		return ctx, apperr.Unauthenticatedf("unknown API token")
	}
	if err != nil {
		return ctx, err
	}
	return loader.Authenticated(ctx, r.Client, u)
}

// viewerUser is the authenticated user.
func viewerUser(ctx context.Context) (*ent.User, error) {
	id := auth.ViewerID(ctx)
	if err := siteScopeUser(ctx); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, apperr.Unauthenticatedf("missing API token")
	}
	return loader.For(ctx).UserByID.Load(ctx, id)()
}

// CurrentViewer is the authenticated caller.
func (r *Resolver) CurrentViewer(ctx context.Context) (*model.Viewer, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	return &model.Viewer{User: u}, nil
}

// EnsureUser finds the user with email or creates it with displayName. Its
// callers are the command line (folio token create --email) and admins'
// tools, who vouch for the address: a user it creates is verified.
func (r *Resolver) EnsureUser(ctx context.Context, email, displayName string) (*ent.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	u, err := r.Client.User.Query().Where(user.Email(email)).Only(ctx)
	if err == nil || !ent.IsNotFound(err) {
		return u, err
	}
	if displayName == "" {
		displayName, _, _ = strings.Cut(email, "@")
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if u, err = tx.User.Create().SetEmail(email).SetDisplayName(displayName).SetEmailVerified(true).Save(ctx); err != nil {
			return entError(err)
		}
		// A user belongs to no organization.
		record(ctx, events.Event{Action: events.UserCreated, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// CreateToken issues a new API token for userID and returns it; only its
// hash is stored, so this is the one time it can be shown. expiresAt nil:
// it never expires (the command line vouches for its own choice).
func (r *Resolver) CreateToken(ctx context.Context, userID, name string, expiresAt *time.Time) (string, error) {
	t, err := r.createToken(ctx, userID, name, expiresAt)
	if err != nil {
		return "", err
	}
	return t.Secret, nil
}
