package account

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
)

type tokenRow struct {
	ID, Name                         string
	CreatedAt, LastUsedAt, ExpiresAt string
	Expired                          bool
	// Client is the OAuth client that obtained the token ("" for a token
	// made here); revoking it ends the client's access.
	Client string
}

// tokens lists the viewer's API tokens, with a form for a new one.
func (p *pages) tokens(w http.ResponseWriter, r *http.Request) {
	p.tokensPage(w, r, http.StatusOK, view{})
}

// tokensPage renders the tokens page with v's message, secret or form
// values; without a session, the sign-in form, coming back here after.
func (p *pages) tokensPage(w http.ResponseWriter, r *http.Request, status int, v view) {
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if !ok {
		http.Redirect(w, r, "/sign-in?next=/account/tokens", http.StatusSeeOther)
		return
	}
	list, err := p.res.ViewerAPITokens(ctx)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	now := clock.Now()
	for _, t := range list {
		row := tokenRow{ID: t.ID, Name: t.Name, CreatedAt: t.CreatedAt.Format(time.RFC3339)}
		if t.OauthClientID != nil {
			// Named after its client when issued.
			row.Client = t.Name
		}
		if t.LastUsedAt != nil {
			row.LastUsedAt = t.LastUsedAt.Format(time.RFC3339)
		}
		if t.ExpiresAt != nil {
			row.ExpiresAt = t.ExpiresAt.Format(time.RFC3339)
			row.Expired = !t.ExpiresAt.After(now)
		}
		v.Tokens = append(v.Tokens, row)
	}
	v.Title = "API tokens"
	p.render(w, status, "tokens", v)
}

// createToken makes a token from the form (name, expiry in days, empty
// for never) and shows its secret this once.
func (p *pages) createToken(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err == nil && !ok {
		err = apperr.Unauthenticatedf("sign in first")
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	name, days := r.PostFormValue("name"), strings.TrimSpace(r.PostFormValue("expiresDays"))
	var expires *time.Time
	if days != "" {
		n, convErr := strconv.Atoi(days)
		if convErr != nil || n < 1 {
			p.tokensPage(w, r, http.StatusBadRequest, view{Error: "expiresDays: a whole number of days, at least 1 (or empty: never)", Name: name, ExpiresDays: days})
			return
		}
		t := clock.Now().Add(time.Duration(n) * 24 * time.Hour)
		expires = &t
	}
	t, err := p.res.CreateAPIToken(ctx, name, expires)
	if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
		p.tokensPage(w, r, e.Status(), view{Error: e.Message, Name: name, ExpiresDays: days})
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	// The secret is in this answer alone (no-store): a reload asks again.
	p.tokensPage(w, r, http.StatusCreated, view{Secret: t.Secret})
}

func (p *pages) revokeToken(w http.ResponseWriter, r *http.Request) {
	p.signedInPost(w, r, "/account/tokens", func(ctx context.Context) error {
		return p.res.RevokeAPIToken(ctx, chi.URLParam(r, "id"))
	})
}
