// Package metrics is Folio's Prometheus instrumentation. The series are
// process-wide (one server a process), so any package records into them
// without a handle; Registry gathers them for one server together with its
// database pool and the Go runtime and process collectors, and Handler
// serves them on the metrics listener (FOLIO_METRICS_ADDR), never on the
// public port.
package metrics

import (
	"database/sql"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Latency buckets, in seconds: from a cached read to the request timeout.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

var (
	// HTTPRequests is every answered request by route pattern (never the
	// raw path: one series per route, however many ids), method and status.
	HTTPRequests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_http_request_duration_seconds",
		Help:    "HTTP requests by route pattern, method and status, with their latency in seconds.",
		Buckets: latencyBuckets,
	}, []string{"route", "method", "status"})
	// HTTPInFlight is the requests being served now.
	HTTPInFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "folio_http_requests_in_flight",
		Help: "HTTP requests being served now.",
	})

	// GraphQLOperations counts operations by name, type (query, mutation)
	// and outcome (ok, error: the answer carries at least one error).
	GraphQLOperations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_graphql_operations_total",
		Help: "GraphQL operations by operation name, type and outcome (ok, error).",
	}, []string{"operation", "type", "outcome"})
	// GraphQLCost is the computed cost of each operation (graph/cost.go).
	GraphQLCost = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_graphql_operation_cost",
		Help:    "Computed cost of GraphQL operations (the most field values the answer can hold), by operation name.",
		Buckets: prometheus.ExponentialBuckets(10, 10, 8), // 10 … 10^8, the limit is 2.5·10^7
	}, []string{"operation"})
	// GraphQLErrors counts the errors of answers by operation and code
	// (extensions.code).
	GraphQLErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_graphql_errors_total",
		Help: "Errors in GraphQL answers by operation name and extensions.code.",
	}, []string{"operation", "code"})

	// LoaderBatchSize is the number of keys each dataloader batch loaded,
	// by the loader's value type.
	LoaderBatchSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "folio_loader_batch_size",
		Help:    "Keys loaded by each dataloader batch, by loaded type.",
		Buckets: prometheus.ExponentialBuckets(1, 4, 7), // 1 … 4096
	}, []string{"loader"})

	// TreeCacheHits and TreeCacheMisses count the page trees read from the
	// trees kept across requests (graph/loader/tree_cache.go) and those
	// built from the database; TreeCachePages and TreeCacheTrees are what
	// it holds now.
	TreeCacheHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_tree_cache_hits_total",
		Help: "Revision page trees served from the trees kept across requests.",
	})
	TreeCacheMisses = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_tree_cache_misses_total",
		Help: "Revision page trees built from the database (not kept, or not yet).",
	})
	TreeCachePages = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "folio_tree_cache_pages",
		Help: "Pages held by the kept revision page trees (bounded by FOLIO_TREE_CACHE_PAGES).",
	})
	TreeCacheTrees = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "folio_tree_cache_trees",
		Help: "Revision page trees kept across requests.",
	})

	// JobRuns counts background job runs by job and outcome (ok, failed).
	JobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_job_runs_total",
		Help: "Background job runs by job (purge, import) and outcome (ok, failed).",
	}, []string{"job", "outcome"})
	// JobLastSuccess is when each job last succeeded (Unix seconds).
	JobLastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "folio_job_last_success_timestamp_seconds",
		Help: "When each background job last succeeded, in Unix seconds.",
	}, []string{"job"})

	// SiteEventsDropped counts page views the reader did not record
	// (graph/insights_writer.go), by reason: buffer_full, write_failed.
	SiteEventsDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_site_events_dropped_total",
		Help: "Page views the published reader did not record, by reason (buffer_full, write_failed).",
	}, []string{"reason"})

	// Ready is 1 while the server takes traffic (/readyz), 0 while it
	// migrates or drains.
	Ready = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "folio_ready",
		Help: "1 while the server is ready for traffic, 0 while it starts, migrates or drains.",
	})
)

// shared is every process-wide series.
var shared = []prometheus.Collector{
	HTTPRequests, HTTPInFlight, GraphQLOperations, GraphQLCost, GraphQLErrors,
	LoaderBatchSize, TreeCacheHits, TreeCacheMisses, TreeCachePages, TreeCacheTrees, JobRuns, jobs{}, JobLastSuccess, Ready, SiteEventsDropped,
	collectors.NewGoCollector(),
	collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
}

// Registry gathers the process-wide series, the pool statistics of db
// (folio_go_sql_*, labelled db_name=dialect; none when db is nil, as while
// the server starts) and the build's version.
func Registry(db *sql.DB, dialect, version string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(shared...)
	if db != nil {
		reg.MustRegister(prometheus.WrapCollectorWithPrefix("folio_",
			collectors.NewDBStatsCollector(db, dialect)))
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "folio_build_info",
		Help:        "Always 1; the labels name the running build.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	info.Set(1)
	reg.MustRegister(info)
	return reg
}

// Handler serves reg in the Prometheus exposition formats.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// Status is an HTTP status as a label.
func Status(code int) string { return strconv.Itoa(code) }

// MaxOperationNames bounds the distinct GraphQL operation names that get
// their own series: names come from clients, and each name costs series.
// Past the bound, new names are counted as "other".
const MaxOperationNames = 200

var (
	namesMu sync.Mutex
	names   = map[string]bool{}
	nameRE  = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]{0,63}$`)
)

// OperationName is the label of a GraphQL operation named name: "anonymous"
// when it has none, "other" past MaxOperationNames distinct names or when
// the name is not a GraphQL name of at most 64 characters.
func OperationName(name string) string {
	if name == "" {
		return "anonymous"
	}
	if !nameRE.MatchString(name) {
		return "other"
	}
	namesMu.Lock()
	defer namesMu.Unlock()
	if names[name] {
		return name
	}
	if len(names) >= MaxOperationNames {
		return "other"
	}
	names[name] = true
	return name
}

// PurgeRunning is the purge runs under way (0 or 1 a process).
var PurgeRunning atomic.Int64

// Gate is what the import gate tells of its turns (importer.Gate).
type Gate interface {
	InFlight() int
	Waiting() int
}

var importGate atomic.Pointer[Gate]

// Imports makes g the gate whose turns folio_jobs_running and
// folio_jobs_queued report for job="import" (imports run inside their
// requests, bounded by FOLIO_MAX_IMPORTS).
func Imports(g Gate) { importGate.Store(&g) }

var (
	jobsRunning = prometheus.NewDesc("folio_jobs_running", "Background jobs running now, by job (purge, import).", []string{"job"}, nil)
	jobsQueued  = prometheus.NewDesc("folio_jobs_queued", "Jobs waiting for a turn now, by job (import: past FOLIO_MAX_IMPORTS).", []string{"job"}, nil)
)

// jobs reads the running and queued jobs when scraped.
type jobs struct{}

func (jobs) Describe(ch chan<- *prometheus.Desc) { ch <- jobsRunning; ch <- jobsQueued }

func (jobs) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(jobsRunning, prometheus.GaugeValue, float64(PurgeRunning.Load()), "purge")
	var running, queued int
	if g := importGate.Load(); g != nil {
		running, queued = (*g).InFlight(), (*g).Waiting()
	}
	ch <- prometheus.MustNewConstMetric(jobsRunning, prometheus.GaugeValue, float64(running), "import")
	ch <- prometheus.MustNewConstMetric(jobsQueued, prometheus.GaugeValue, float64(queued), "import")
}

// Outcome is JobRuns' outcome label of a run that succeeded or not.
func Outcome(ok bool) string {
	if ok {
		return "ok"
	}
	return "failed"
}
