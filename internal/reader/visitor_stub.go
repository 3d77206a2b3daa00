package reader

// STUB until branch visitor lands internal/visitor.Admit (same signature):
// public and unlisted sites are open, every other site answers 404.

import (
	"context"
	"net/http"

	"github.com/folio/folio/internal/adaptive"
)

type visitorSite struct {
	ID, Visibility          string
	CookiePath              string
	Secure                  bool
	VisitorKey, FallbackURL string
	Schema                  *adaptive.Schema
	ShareKeyActive          func(ctx context.Context, key string) (bool, error)
}

type visitorOf struct {
	Claims map[string]any
	State  string
}

func admit(w http.ResponseWriter, r *http.Request, s visitorSite) (visitorOf, bool) {
	if s.Visibility == "public" || s.Visibility == "unlisted" {
		return visitorOf{Claims: map[string]any{}}, true
	}
	w.WriteHeader(http.StatusNotFound)
	return visitorOf{}, false
}
