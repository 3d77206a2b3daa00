package app

import (
	"context"
	"log/slog"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/metrics"
)

// jobRunner is the App's one runner of background jobs: OpenAPI processing
// (queued by requests), the purge of deleted spaces and the audit log's
// retention (periodic, every
// PurgeInterval, once across instances). It polls through the raw pool, so
// tests' statement counts see only requests.
func (a *App) jobRunner(d *db.DB, logger *slog.Logger) *jobs.Runner {
	log := slog.New(WithRequestID(logger.Handler()))
	r := &jobs.Runner{
		DB:      d.SQL,
		Dialect: d.Dialect,
		Handlers: map[string]jobs.Handler{
			graph.JobOpenAPI:         a.Resolver.ProcessOpenAPISpec,
			graph.JobWebhookDelivery: a.Resolver.DeliverWebhook,
			graph.JobAccountMail:     a.Resolver.MailAccountLink,
			graph.JobGitSync:         a.Resolver.RunGitSync,
			graph.JobPurge: func(ctx context.Context, _ jobs.Job) error {
				metrics.PurgeRunning.Add(1)
				defer metrics.PurgeRunning.Add(-1)
				n, err := a.Resolver.PurgeDeletedSpaces(ctx)
				if err != nil {
					return err
				}
				if n > 0 {
					log.Info("purged deleted spaces", "count", n)
				}
				contents, derived, err := a.Resolver.PurgeOrphanedContents(ctx)
				if err != nil {
					return err
				}
				if contents+derived > 0 {
					log.Info("purged orphaned page bodies", "contents", contents, "derived", derived)
				}
				_, err = a.Resolver.PurgeFinishedJobs(ctx)
				return err
			},
			// The audit log keeps events for AuditRetention: older ones are
			// deleted in batches (they record nothing: maintenance).
			graph.JobAuditRetention: func(ctx context.Context, _ jobs.Job) error {
				n, err := a.Resolver.PurgeExpiredEvents(ctx, a.Config.AuditRetention)
				if n > 0 {
					log.Info("deleted audit events past retention", "count", n, "retention", a.Config.AuditRetention.String())
				}
				if err != nil {
					return err
				}
				// Ended sessions, past rate windows and the ids of expired
				// SAML assertions go with them.
				if err := a.Resolver.PurgeExpiredSAMLAssertions(ctx); err != nil {
					return err
				}
				return a.Resolver.PurgeEndedSessions(ctx)
			},
		},
		Periodic: []jobs.Periodic{
			{Kind: graph.JobPurge, Every: a.Config.PurgeInterval},
			{Kind: graph.JobAuditRetention, Every: a.Config.PurgeInterval},
		},
		Policies: map[string]jobs.Policy{
			graph.JobWebhookDelivery: {MaxAttempts: a.Config.WebhookMaxAttempts, Backoff: a.Config.WebhookBackoff},
		},
		Poll:        a.Config.JobPoll,
		Lease:       a.Config.JobLease,
		MaxAttempts: a.Config.JobMaxAttempts,
		Backoff:     a.Config.JobBackoff,
		Logger:      log,
		Observe: func(kind string, ok bool) {
			metrics.JobRuns.WithLabelValues(kind, metrics.Outcome(ok)).Inc()
			if ok {
				metrics.JobLastSuccess.WithLabelValues(kind).SetToCurrentTime()
			}
		},
	}
	for kind, h := range r.Handlers {
		r.Handlers[kind] = asWorkflow(h)
	}
	return r
}

// asWorkflow runs a job's writes as the system's, through a workflow
// (events' default origin), correlated by the job's id.
func asWorkflow(h jobs.Handler) jobs.Handler {
	return func(ctx context.Context, j jobs.Job) error {
		return h(events.WithCorrelationID(ctx, j.ID), j)
	}
}
