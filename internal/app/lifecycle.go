package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/metrics"
)

// A server's life, as /readyz reports it: starting (the port is ours, the
// database is being opened and migrated: 503), ready (200 while the
// database answers), draining (after SIGTERM: 503, so load balancers stop
// sending, while in-flight requests and jobs finish).
//
// Draining is bounded: DrainDelay of serving as usual with /readyz at 503,
// then the port closes and in-flight requests and jobs get ShutdownTimeout.
// A request still running a moment before that ends is cut and answers 503
// (ErrDraining) rather than being dropped with its connection, whatever is
// left of its own RequestTimeout; so the process always exits within
// DrainDelay + ShutdownTimeout of the signal.

// ErrDraining answers a request the server cut short because it is
// shutting down.
var ErrDraining = &apperr.Error{Kind: apperr.Unavailable, RetryAfter: 1,
	Message: "the server is shutting down (FOLIO_SHUTDOWN_TIMEOUT); retry, another instance will answer"}

// errStarting answers every request but /healthz while the server starts.
var errStarting = &apperr.Error{Kind: apperr.Unavailable, RetryAfter: 1,
	Message: "the server is starting (migrating the database); retry shortly"}

// lifecycle is an App's part of the drain: the flag /readyz reads, and the
// context whose end cuts in-flight requests and jobs.
type lifecycle struct {
	draining atomic.Bool
	cut      context.Context
	cutNow   context.CancelCauseFunc
	jobs     sync.WaitGroup
	stopJobs chan struct{} // closed when draining begins: no new job runs
	stopOnce sync.Once
}

func newLifecycle() *lifecycle {
	l := &lifecycle{stopJobs: make(chan struct{})}
	l.cut, l.cutNow = context.WithCancelCause(context.Background())
	return l
}

// drain marks the App draining: /readyz answers 503, jobs start no new run.
func (l *lifecycle) drain() {
	l.draining.Store(true)
	l.stopOnce.Do(func() { close(l.stopJobs) })
}

// cutMargin is how long before the end of the shutdown timeout running
// requests are cut, so their 503 still goes out before the connections
// close.
func cutMargin(timeout time.Duration) time.Duration { return min(time.Second, timeout/10) }

// Serve runs Folio on ln (and /metrics on metricsLn when not nil) from the
// moment the port is bound: while open opens and migrates the database,
// /healthz answers and everything else 503 (/readyz included); then the
// App that open returned answers, and its background jobs run. When ctx
// ends, the server drains (see above) and Serve returns; the caller closes
// the database.
func Serve(ctx context.Context, cfg Config, ln, metricsLn net.Listener, logger *slog.Logger, open func(context.Context) (*App, error)) error {
	logger.Info("starting", "version", Version(), "addr", ln.Addr().String())
	var current atomic.Pointer[App]
	srv := newHTTPServer(cfg, logger, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := current.Load(); a != nil {
			a.Handler.ServeHTTP(w, r)
			return
		}
		starting(w, r)
	}))
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	var msrv *http.Server
	if metricsLn != nil {
		early := metrics.Handler(metrics.Registry(nil, "", Version()))
		msrv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := current.Load(); a != nil {
				a.MetricsHandler().ServeHTTP(w, r)
				return
			}
			early.ServeHTTP(w, r)
		})}
		go func() { errc <- msrv.Serve(metricsLn) }()
		logger.Info("metrics listener", "addr", metricsLn.Addr().String())
	}
	closeAll := func() {
		srv.Close()
		if msrv != nil {
			msrv.Close()
		}
	}

	a, err := open(ctx)
	if err != nil {
		closeAll()
		return err
	}
	current.Store(a)
	metrics.Ready.Set(1)
	if a.OnServing != nil {
		a.OnServing() // requests made from here on reach the App
	}
	a.startJobs()
	logger.Info("serving", "version", Version(), "addr", ln.Addr().String(), "base_url", a.Config.PublicBaseURL(), "database", a.DB.Dialect)

	select {
	case err := <-errc:
		closeAll()
		a.life.drain()
		a.life.cutNow(ErrDraining)
		return err
	case <-ctx.Done():
	}

	a.life.drain()
	metrics.Ready.Set(0)
	if cfg.DrainDelay > 0 {
		logger.Info("draining: /readyz answers 503, still serving", "drain_delay", cfg.DrainDelay)
		time.Sleep(cfg.DrainDelay)
	}
	timeout := cfg.ShutdownTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	logger.Info("shutting down: waiting for in-flight requests and jobs", "timeout", timeout)
	cut := time.AfterFunc(timeout-cutMargin(timeout), func() { a.life.cutNow(ErrDraining) })
	defer cut.Stop()
	shutCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err = srv.Shutdown(shutCtx)
	jobsDone := make(chan struct{})
	go func() { a.life.jobs.Wait(); close(jobsDone) }()
	select {
	case <-jobsDone:
	case <-shutCtx.Done():
		a.life.cutNow(ErrDraining)
		<-jobsDone // cut jobs stop at their next statement
	}
	// Page views the reader buffered (graph/insights_writer.go) are
	// written before the database closes.
	a.Resolver.FlushSiteEvents()
	if msrv != nil {
		msrv.Close() // scrapes are short and not worth waiting for
	}
	if errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("shutdown timeout passed: closing connections still open", "timeout", timeout)
		srv.Close()
		return nil
	}
	logger.Info("stopped")
	return err
}

// newHTTPServer is the public server around h. The connection's limits
// follow the request's deadline: reading the body counts against it, and
// writing gets a grace period past it so the deadline's own 503 still
// reaches the client.
func newHTTPServer(cfg Config, logger *slog.Logger, h http.Handler) *http.Server {
	timeout := cfg.RequestTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(10*time.Second, timeout),
		ReadTimeout:       timeout,
		WriteTimeout:      timeout + writeGrace,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(WithRequestID(logger.Handler()), slog.LevelWarn),
	}
}

// starting answers while the database is opened: /healthz is 200 (the
// process is alive), everything else 503.
func starting(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		health(w, r)
		return
	}
	apperr.Write(w, r, errStarting)
}

// health is /healthz: the process is up, and which build it runs.
func health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	version, _ := json.Marshal(Version())
	_, _ = w.Write([]byte(`{"status":"ok","version":` + string(version) + `}` + "\n"))
}

// startJobs runs the App's job runner (internal/jobs: OpenAPI processing
// and the periodic purge) until draining begins; a job under way then
// finishes, or is cut with the requests (its lease runs out and it runs
// again on the next start or on another instance).
func (a *App) startJobs() {
	a.life.jobs.Add(1)
	go func() {
		defer a.life.jobs.Done()
		a.Resolver.Jobs.Run(a.life.stopJobs, a.life.cut)
	}()
	a.startHub()
	if a.webhooks != nil {
		a.life.jobs.Add(1)
		go func() {
			defer a.life.jobs.Done()
			a.webhooks.Run(a.life.stopJobs, db.Uncounted(a.life.cut))
		}()
	}
}

// startHub runs the subscription hub until the drain (every subscription
// then ends: its clients reconnect to another instance and resume).
func (a *App) startHub() {
	if a.Hub == nil {
		return
	}
	notified, err := a.DB.ListenEvents(a.life.cut)
	if err != nil {
		slog.Error("subscriptions: listening for events failed; polling instead", "err", err)
	}
	a.life.jobs.Add(1)
	go func() {
		defer a.life.jobs.Done()
		a.Hub.Run(a.life.stopJobs, db.Uncounted(a.life.cut), notified)
	}()
}

// StartHub runs the subscription hub of an App that tests built without
// Serve and without its jobs (StopJobs stops it too).
func (a *App) StartHub() { a.startHub() }

// StartJobs runs the job runner of an App that tests built without Serve.
func (a *App) StartJobs() { a.startJobs() }

// StopJobs stops the job runner as draining does and waits for jobs under
// way (cut at once when cut is true, as at the end of the shutdown timeout).
func (a *App) StopJobs(cut bool) {
	a.life.drain()
	if cut {
		a.life.cutNow(ErrDraining)
	}
	a.life.jobs.Wait()
}
