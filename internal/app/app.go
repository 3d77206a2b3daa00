package app

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/blob"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/explorer"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/metrics"
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
	life    *lifecycle
}

// New wires the resolvers and both APIs over database d and the blob
// storage of cfg.
func New(cfg Config, d *db.DB, logger *slog.Logger) (*App, error) {
	blobs, err := blob.Open(context.Background(), cfg.BlobURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	res := &graph.Resolver{
		Client:  d.Client,
		Dialect: d.Dialect,
		BaseURL: cfg.PublicBaseURL(),
		Blobs:   blobs,
		Fetcher: fetch.Fetcher{AllowPrivate: cfg.AllowPrivateFetch, MaxBytes: MaxFetchBytes},
		Imports: &importer.Gate{Max: cfg.MaxImports},
	}
	a := &App{Config: cfg, DB: d, Resolver: res, life: newLifecycle(),
		Metrics: metrics.Registry(d.SQL, d.Dialect, Version())}
	metrics.Imports(res.Imports)
	res.OpenAPILimits.FetchTime = cfg.OpenAPIFetchTimeout
	res.Jobs = a.jobRunner(d, logger)
	a.Handler = a.routes(slog.New(WithRequestID(logger.Handler())))
	return a, nil
}

// graphQLPath is the GraphQL endpoint; every answer from it, refusals
// included, is in GraphQL's shape.
const graphQLPath = "/graphql"

// MaxFetchBytes caps what Folio downloads for one file or import.
const MaxFetchBytes = 20 << 20

func (a *App) routes(logger *slog.Logger) http.Handler {
	r := chi.NewRouter()
	r.Use(graphQLErrors(graphQLPath))
	r.Use(requestLog(logger))
	r.Use(a.securityHeaders)
	r.Use(a.deadline)
	r.Use(limitBody(a.Config.MaxBodyBytes))
	r.NotFound(rest.NotFound)
	r.MethodNotAllowed(rest.MethodNotAllowed)

	r.Get("/healthz", health)
	r.Get("/readyz", a.ready)

	gql := graph.NewHandler(a.Resolver, a.Config.MaxResponseBytes)
	r.Get(graphQLPath, func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Query().Get("query") == "" {
			explorer.Page(w, req)
			return
		}
		a.Resolver.Authenticate(gql).ServeHTTP(w, req)
	})
	r.With(a.Resolver.Authenticate).Post(graphQLPath, gql.ServeHTTP)
	r.Get(explorer.AssetPath+"*", explorer.Asset)

	rest.Downloads(r, a.Resolver)

	r.Route("/v1", func(v1 chi.Router) {
		v1.Use(a.Resolver.Authenticate)
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
