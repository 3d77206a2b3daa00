// Package graph is the application: every read and write of both APIs goes
// through these resolvers, their authorization checks and the per-request
// dataloaders. REST (package rest) calls the same methods.
package graph

import (
	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/blob"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/gate"
	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/mail"
	"github.com/folio/folio/internal/openapi"
	"github.com/folio/folio/internal/secrets"
)

//go:generate go run github.com/99designs/gqlgen generate

// Resolver holds the dependencies of every resolver.
type Resolver struct {
	Client *ent.Client
	// BaseURL is the public URL of the server, without a trailing slash,
	// used in every `urls` object.
	BaseURL string
	// Dialect is the database's (search speaks its own SQL).
	Dialect string
	// Blobs keeps file bytes; Fetcher downloads what users point at.
	Blobs   *blob.Store
	Fetcher fetch.Fetcher
	// Imports bounds the imports in flight (nil: importer's defaults).
	Imports *importer.Gate
	// PDFs bounds the PDFs printed at once (nil: gate's defaults).
	PDFs *gate.Gate
	// Jobs runs background work (nil: jobs queue but nothing wakes the
	// runner early); OpenAPILimits bound OpenAPI processing (zero fields:
	// internal/openapi's defaults).
	Jobs          *jobs.Runner
	OpenAPILimits openapi.Limits
	// Secrets seals the secrets kept in the database and opens them
	// (graph/secrets.go); the app makes it from FOLIO_SECRET_KEY or the
	// key file.
	Secrets *secrets.Sealer
	// Events learns of every committed write's events (nil: no one
	// listens in this process).
	Events Notifier
	// WebhookSettings bound webhook sending (webhooks_dispatch.go).
	WebhookSettings WebhookSettings
	// Hub hands committed events to this instance's subscriptions (nil:
	// subscriptions are refused); SubscriptionSettings bound them
	// (subscriptions.go).
	Hub                  *Hub
	SubscriptionSettings SubscriptionSettings
	// SessionSettings bound sign-in sessions (sessions.go).
	SessionSettings SessionSettings
	// OAuthSettings bound OAuth access and refresh tokens (oauth.go).
	OAuthSettings OAuthSettings

	// Hostnames: FOLIO_SITE_HOSTS, the stored custom host names as last
	// read, and the DNS their checks ask (hostnames.go).
	Hostnames Hostnames
	// APIVersion is the build getApiInformation names (urls.go).
	APIVersion string

	// Git configures Git import and export (gitsync.go).
	Git GitSettings
	// SearchRankLimit is the most matches a search ranks
	// (FOLIO_SEARCH_RANK_LIMIT; 0: DefaultSearchRankLimit).
	SearchRankLimit int

	// Mailer sends invitations (people.go); nil when FOLIO_SMTP_URL is
	// unset: invitations then answer their links instead.
	Mailer *mail.Mailer
	// published keeps published sites' navigation and rendered pages
	// (sites_reader.go), made on first use.
	published publishedCaches
	// insights buffers the reader's page views (insights_writer.go).
	insights siteEventWriter
	// oidc keeps OpenID Connect providers' discovery (oidcproviders_signin.go).
	oidc oidcCache
}

// done answers a mutation whose schema type is Boolean: true once the
// application method it forwards to has succeeded, null (with the error)
// when it failed.
func done(err error) (*bool, error) {
	if err != nil {
		return nil, err
	}
	ok := true
	return &ok, nil
}

// valueOrNull answers a nullable scalar field: the value once the method it
// forwards to succeeded, null with the error when it failed.
func valueOrNull[T any](v T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &v, nil
}
