package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/account"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/blob"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/explorer"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/gate"
	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/mail"
	"github.com/folio/folio/internal/metrics"
	"github.com/folio/folio/internal/oauth"
	"github.com/folio/folio/internal/reader"
	"github.com/folio/folio/rest"
)

// App is a configured Folio over an open database.
type App struct {
	Config   Config
	DB       *db.DB
	Resolver *graph.Resolver
	Handler  http.Handler
	// OnServing, when set, is called once Serve routes requests to the
	// App (the first-start banner is printed then, so its curl line works).
	OnServing func()
	// Metrics gathers the process's series and this App's database pool.
	Metrics *prometheus.Registry
	// Reader serves the published sites (/s/ and mapped hosts).
	Reader *reader.Handler
	// MadeKeyFile is the key file of the database's secrets when this
	// start made it (SQLite's first start), for the banner; else "".
	MadeKeyFile string
	life        *lifecycle
	// webhooks fans events out to webhooks while jobs run.
	webhooks *graph.WebhookDispatcher
	// Hub hands events to this instance's GraphQL subscriptions.
	Hub *graph.Hub
}

// siteHosts reads FOLIO_SITE_HOSTS, refusing the base URL's own host: it
// serves the APIs, and cannot be one site's too.
func siteHosts(cfg Config) (map[string]string, error) {
	hosts, err := ParseSiteHosts(cfg.SiteHosts)
	if err != nil {
		return nil, fmt.Errorf("FOLIO_SITE_HOSTS: %w", err)
	}
	if u, err := url.Parse(cfg.PublicBaseURL()); err == nil {
		for _, h := range []string{strings.ToLower(u.Host), strings.ToLower(u.Hostname())} {
			if _, ok := hosts[h]; ok {
				return nil, fmt.Errorf("FOLIO_SITE_HOSTS maps %s, the host of FOLIO_BASE_URL (%s): the base URL serves the APIs and every site under /s/; map another host", h, cfg.PublicBaseURL())
			}
		}
	}
	return hosts, nil
}

// New wires the resolvers and both APIs over database d and the blob
// storage of cfg.
func New(cfg Config, d *db.DB, logger *slog.Logger) (*App, error) {
	blobs, err := blob.Open(context.Background(), cfg.BlobURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	loader.LimitTreeCache(cfg.TreeCachePages)
	res := &graph.Resolver{
		Client:  d.Client,
		Dialect: d.Dialect,
		BaseURL: cfg.PublicBaseURL(),
		Blobs:   blobs,
		Fetcher: fetch.Fetcher{AllowPrivate: cfg.AllowPrivateFetch, MaxBytes: MaxFetchBytes},
		Imports: &importer.Gate{Max: cfg.MaxImports},
		PDFs:    &gate.Gate{Max: cfg.MaxPDFs},
		Git:     graph.GitSettings{KnownHosts: cfg.GitKnownHosts, SSHKey: cfg.GitSSHKey},
	}
	sealer, madeKeyFile, err := openSecrets(context.Background(), cfg, d, logger)
	if err != nil {
		return nil, err
	}
	res.Secrets = sealer
	if cfg.SMTPURL != "" {
		// Checked with the settings already; its errors never hold the
		// password.
		if res.Mailer, err = mail.Parse(cfg.SMTPURL); err != nil {
			return nil, fmt.Errorf("FOLIO_SMTP_URL: %w", err)
		}
	}
	hosts, err := siteHosts(cfg)
	if err != nil {
		return nil, err
	}
	res.Hostnames.Configured = hosts
	res.APIVersion = Version()
	origins, err := ParseOrigins(cfg.CORSOrigins)
	if err != nil {
		return nil, fmt.Errorf("FOLIO_CORS_ORIGINS: %w", err)
	}
	a := &App{Config: cfg, DB: d, Resolver: res, life: newLifecycle(), MadeKeyFile: madeKeyFile, Reader: reader.New(res, cfg.PublicBaseURL(), hosts),
		Metrics: metrics.Registry(d.SQL, d.Dialect, Version())}
	metrics.Imports(res.Imports)
	res.OpenAPILimits.FetchTime = cfg.OpenAPIFetchTimeout
	res.SearchRankLimit = cfg.SearchRankLimit
	res.Jobs = a.jobRunner(d, logger)
	res.WebhookSettings = graph.WebhookSettings{Timeout: cfg.WebhookTimeout, DisableAfter: cfg.WebhookDisableAfter}
	res.SubscriptionSettings = graph.SubscriptionSettings{PerConnection: cfg.SubscriptionsPerConnection,
		EventTimeout: cfg.RequestTimeout, Heartbeat: cfg.SubscriptionHeartbeat, Idle: cfg.SubscriptionIdle, MaxLifetime: cfg.SubscriptionMaxLifetime}
	res.SessionSettings = graph.SessionSettings{Idle: cfg.SessionIdle, Lifetime: cfg.SessionLifetime, OpenSignup: cfg.OpenSignup}
	res.OAuthSettings = graph.OAuthSettings{AccessLifetime: cfg.OAuthAccessLifetime, RefreshLifetime: cfg.OAuthRefreshLifetime}
	// The subscription hub and the webhook dispatcher learn of this
	// instance's commits at once, and of other instances' through the
	// database (lifecycle.go: startJobs).
	a.Hub = graph.NewHub(d.Client, cfg.JobPoll, cfg.SubscriptionsPerInstance, slog.New(WithRequestID(logger.Handler())))
	res.Hub = a.Hub
	a.webhooks = graph.NewWebhookDispatcher(res, cfg.JobPoll, slog.New(WithRequestID(logger.Handler())))
	res.Events = graph.Notifiers{a.Hub, a.webhooks}
	a.Handler = a.routes(a.middleware(slog.New(WithRequestID(logger.Handler())), origins))
	return a, nil
}

// graphQLPath is the GraphQL endpoint; every answer from it, refusals
// included, is in GraphQL's shape.
const graphQLPath = "/graphql"

// MaxFetchBytes caps what Folio downloads for one file or import.
const MaxFetchBytes = 20 << 20

// middleware is what every request passes before its route, in order.
// Every ResponseWriter wrapper in it passes Flush and Hijack through
// (streams need them: TestMiddlewareFlushAndHijack walks this list).
func (a *App) middleware(logger *slog.Logger, origins []string) []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{
		graphQLErrors(graphQLPath),
		requestLog(logger),
		a.securityHeaders,
		// Before the deadline, the body limit and authentication: a
		// preflight needs none of them.
		a.crossOrigin(origins),
		a.deadline,
		limitBody(a.Config.MaxBodyBytes),
		// A host mapped to a site serves that site alone, every path of it.
		a.Reader.Hosts,
	}
}

func (a *App) routes(middleware []func(http.Handler) http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware...)
	r.NotFound(rest.NotFound)
	r.MethodNotAllowed(rest.MethodNotAllowed)

	r.Get("/healthz", health)
	r.Get("/readyz", a.ready)

	// GraphQL runs for anonymous callers too (no Authorization header at
	// all): fields that need a viewer refuse them on their own.
	gql := a.Resolver.AuthenticateOptional(graph.NewHandler(a.Resolver, a.Config.MaxResponseBytes))
	r.Get(graphQLPath, func(w http.ResponseWriter, req *http.Request) {
		// A GET with neither a query nor extensions (a persisted query
		// names its hash there) is a person opening the explorer.
		if q := req.URL.Query(); q.Get("query") == "" && q.Get("extensions") == "" && !graph.IsWebSocket(req) {
			explorer.Page(w, req)
			return
		}
		gql.ServeHTTP(w, req)
	})
	r.Post(graphQLPath, gql.ServeHTTP)
	r.Get(explorer.AssetPath+"*", explorer.Asset)

	rest.Downloads(r, a.Resolver)

	// Sign-in, sign-out and the account page (internal/account).
	account.Routes(r, a.Resolver)
	// OAuth 2.1 for tools: metadata, registration, consent, tokens.
	oauth.Routes(r, a.Resolver)

	// Published sites: /s/ belongs to them.
	r.Get("/s/*", a.Reader.ServeSites)
	r.Head("/s/*", a.Reader.ServeSites)
	r.Handle("/s/{name}/"+reader.MCPPath, http.HandlerFunc(a.Reader.ServeMCP)) // POST; others 405
	r.Get("/robots.txt", a.Reader.Robots)
	r.Get(reader.AssetPrefix+"*", a.Reader.ServeAsset)
	r.Get("/favicon.ico", a.Reader.Favicon)
	// A TLS proxy's question before an on-demand certificate.
	r.Get(reader.TLSAskPath, a.Reader.TLSAsk)

	r.Route("/v1", func(v1 chi.Router) {
		v1.Use(rest.Authenticate(a.Resolver)) // a few operations answer anonymous callers too
		v1.NotFound(rest.NotFound)
		v1.MethodNotAllowed(rest.MethodNotAllowed)
		rest.Routes(v1, a.Resolver)
	})
	return r
}

// ready answers 200 when the database answers, 503 while draining or when
// it does not.
func (a *App) ready(w http.ResponseWriter, r *http.Request) {
	if a.life.draining.Load() {
		apperr.Write(w, r, &apperr.Error{Kind: apperr.Unavailable, Message: "draining: the server is shutting down"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.DB.SQL.PingContext(ctx); err != nil {
		slog.WarnContext(ctx, "readiness: database unreachable", "err", err)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":503,"message":"database unreachable"}}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ready"}` + "\n"))
}

// ServeListener runs the App on ln (the caller binds it, so a taken port
// is known before anything else happens) until ctx ends, then drains (see
// Serve).
func (a *App) ServeListener(ctx context.Context, ln net.Listener, logger *slog.Logger) error {
	return Serve(ctx, a.Config, ln, nil, logger, func(context.Context) (*App, error) { return a, nil })
}

// MetricsHandler serves the App's metrics (FOLIO_METRICS_ADDR).
func (a *App) MetricsHandler() http.Handler { return metrics.Handler(a.Metrics) }
