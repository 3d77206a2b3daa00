package graph

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// Personal API tokens (README: Signing in): a user lists, creates and
// revokes their own; the secret is shown once, at creation.
const (
	// MaxTokensListed caps the tokens page.
	MaxTokensListed = 100
	// MaxTokenName bounds a token's name, in characters.
	MaxTokenName = 100
	// MaxTokenLifetime bounds an expiry: a year at most (or none).
	MaxTokenLifetime = 366 * 24 * time.Hour
)

// NewAPIToken is what creating a token gives: the token, and its secret,
// shown this once.
type NewAPIToken struct {
	Token  *ent.APIToken
	Secret string
}

// ViewerAPITokens are the viewer's tokens, newest first (at most
// MaxTokensListed), expired ones too (the list shows when they expired).
func (r *Resolver) ViewerAPITokens(ctx context.Context) ([]*ent.APIToken, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	return r.Client.APIToken.Query().Where(apitoken.UserID(u.ID)).
		Order(ent.Desc(apitoken.FieldCreatedAt), ent.Desc(apitoken.FieldID)).Limit(MaxTokensListed).All(ctx)
}

// ViewerAPITokensPage pages through the viewer's tokens (viewer.apiTokens),
// newest first unless args say otherwise.
func (r *Resolver) ViewerAPITokensPage(ctx context.Context, args paging.Args) (paging.Page[*ent.APIToken], error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return paging.Page[*ent.APIToken]{}, err
	}
	return listPage(ctx, r.Client.APIToken.Query().Where(apitoken.UserID(u.ID)), args, apitoken.FieldCreatedAt,
		func(t *ent.APIToken) paging.Cursor { return paging.Cursor{Time: t.CreatedAt, ID: t.ID} })
}

// viewerAPIToken is one of the viewer's tokens (404 otherwise: another
// user's token is not theirs to see).
func (r *Resolver) viewerAPIToken(ctx context.Context, id string) (*ent.APIToken, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	t, err := r.Client.APIToken.Query().Where(apitoken.ID(id), apitoken.UserID(u.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("API token %s not found", id)
	}
	return t, err
}

// CreateAPIToken issues a token to the viewer: name is required (at most
// MaxTokenName characters, one line), expiresAt is nil (never) or a time
// in the future within MaxTokenLifetime.
func (r *Resolver) CreateAPIToken(ctx context.Context, name string, expiresAt *time.Time) (*NewAPIToken, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxTokenName || strings.ContainsAny(name, "\r\n") {
		return nil, apperr.InvalidField("name", "must be one line of 1 to %d characters", MaxTokenName)
	}
	if expiresAt != nil {
		now := clock.Now()
		if !expiresAt.After(now) {
			return nil, apperr.InvalidField("expiresAt", "must be in the future")
		}
		if expiresAt.After(now.Add(MaxTokenLifetime)) {
			return nil, apperr.InvalidField("expiresAt", "must be within %d days (or none: never expires)", int(MaxTokenLifetime/(24*time.Hour)))
		}
	}
	return r.createToken(ctx, u.ID, name, expiresAt)
}

func (r *Resolver) createToken(ctx context.Context, userID, name string, expiresAt *time.Time) (*NewAPIToken, error) {
	secret, hash := auth.NewToken()
	var out *NewAPIToken
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		t, err := tx.APIToken.Create().SetUserID(userID).SetHash(hash).SetName(name).SetNillableExpiresAt(expiresAt).Save(ctx)
		if err != nil {
			return entError(err)
		}
		// A user's token belongs to no organization; the payload never
		// holds the token or its hash.
		record(ctx, events.Event{
			Action:  events.APITokenCreated,
			Target:  events.Target{Type: "api-token", ID: t.ID, Label: t.Name},
			Payload: map[string]any{"name": t.Name, "userId": userID},
		})
		out = &NewAPIToken{Token: t, Secret: secret}
		return nil
	})
	return out, err
}

// RevokeAPIToken deletes one of the viewer's tokens: it no longer
// authenticates anyone. A token an OAuth client obtained ends its grant.
func (r *Resolver) RevokeAPIToken(ctx context.Context, id string) error {
	t, err := r.viewerAPIToken(ctx, id)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if t.OauthGrantID != nil {
			// An OAuth access token: revoking it ends its grant, the
			// refresh token too (else the tool would just refresh).
			g, err := tx.OAuthGrant.Get(ctx, *t.OauthGrantID)
			if err != nil && !ent.IsNotFound(err) {
				return err
			}
			if g != nil {
				if err := revokeGrant(ctx, tx, g, "revoked by the user"); err != nil {
					return err
				}
			}
		}
		n, err := tx.APIToken.Delete().Where(apitoken.ID(t.ID)).Exec(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, events.Event{Action: events.APITokenRevoked, Target: events.Target{Type: "api-token", ID: t.ID, Label: t.Name},
			Payload: map[string]any{"name": t.Name, "userId": t.UserID}})
		return nil
	})
}
