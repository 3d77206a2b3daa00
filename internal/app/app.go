package app

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/blob"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/explorer"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/rest"
)

// App is a configured Folio over an open database.
type App struct {
	Config   Config
	DB       *db.DB
	Resolver *graph.Resolver
	Handler  http.Handler
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
	a := &App{Config: cfg, DB: d, Resolver: res}
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

	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
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

// ready answers 200 when the database answers, 503 otherwise.
func (a *App) ready(w http.ResponseWriter, r *http.Request) {
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

// ServeListener runs the HTTP server on ln (the caller binds it, so a taken
// port is known before anything else happens) until ctx ends, then stops
// accepting connections and lets in-flight requests finish (up to
// ShutdownTimeout) before returning.
func (a *App) ServeListener(ctx context.Context, ln net.Listener, logger *slog.Logger) error {
	// The connection's limits follow the request's deadline: reading the
	// body counts against it, and writing gets a grace period past it so the
	// deadline's own 503 still reaches the client.
	timeout := a.Config.RequestTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	srv := &http.Server{
		Handler:           a.Handler,
		ReadHeaderTimeout: min(10*time.Second, timeout),
		ReadTimeout:       timeout,
		WriteTimeout:      timeout + 10*time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(WithRequestID(logger.Handler()), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go a.purgeLoop(ctx, logger)
	logger.Info("serving", "addr", ln.Addr().String(), "base_url", a.Config.PublicBaseURL(), "database", a.DB.Dialect)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: waiting for in-flight requests", "timeout", a.Config.ShutdownTimeout)
	shutCtx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
	defer cancel()
	return srv.Shutdown(shutCtx)
}

// purgeLoop removes spaces past their restore window, at start and then
// every PurgeInterval, until ctx ends.
func (a *App) purgeLoop(ctx context.Context, logger *slog.Logger) {
	ticker := time.NewTicker(a.Config.PurgeInterval)
	defer ticker.Stop()
	for {
		n, err := a.Resolver.PurgeDeletedSpaces(ctx)
		if err != nil && ctx.Err() == nil {
			logger.Error("purge of deleted spaces failed", "err", err)
		} else if n > 0 {
			logger.Info("purged deleted spaces", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
