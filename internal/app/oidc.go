package app

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
)

// The operator's OpenID Connect providers (`folio oidc add|list|remove`);
// the rules are graph's (graph/oidcproviders.go).

// AddOIDCProvider stores a provider.
func (a *App) AddOIDCProvider(ctx context.Context, in graph.OIDCProviderInput) (*ent.OIDCProvider, error) {
	return a.Resolver.AddOIDCProvider(CommandLine(ctx), in)
}

// OIDCProviders lists the providers.
func (a *App) OIDCProviders(ctx context.Context) ([]*ent.OIDCProvider, error) {
	return a.Resolver.OIDCProviders(CommandLine(ctx))
}

// RemoveOIDCProvider removes the provider named name.
func (a *App) RemoveOIDCProvider(ctx context.Context, name string) error {
	return a.Resolver.RemoveOIDCProvider(CommandLine(ctx), name)
}
