package events

// Exemption names a kind of write that records no event: telemetry, which
// changes nothing anyone edits and would drown the audit log. This list is
// the whole of them; any other write records an event (Guard).
type Exemption string

const (
	// ExemptLastSeen: a member's last-seen time, touched by their requests.
	ExemptLastSeen Exemption = "last seen"
	// ExemptInsights: a published site's visit counters and pings.
	ExemptInsights Exemption = "site insights"
	// ExemptSession: a session's last use.
	ExemptSession Exemption = "session touch"
	// ExemptTokenUse: an API token's last use.
	ExemptTokenUse Exemption = "token use"
	// ExemptRate: rate-limit counters.
	ExemptRate Exemption = "rate counter"
	// ExemptCeremony: a passkey ceremony's server-side state (its
	// challenge, or a password sign-in waiting for its passkey): a
	// minutes-long, single-use row, like a rate counter; what the
	// ceremony achieves records its own event.
	ExemptCeremony Exemption = "passkey ceremony"
	// ExemptMaintenance: the periodic purge and retention jobs, which
	// remove what is already gone (deleted spaces past their grace,
	// expired downloads, orphaned bodies, events past retention).
	ExemptMaintenance Exemption = "maintenance"
	// ExemptDelivery: webhook deliveries and their attempts, records of
	// sending events rather than changes.
	ExemptDelivery Exemption = "event delivery"
	// ExemptDerived: what is computed from stored page bodies and cached
	// on first read (page_derived rows): a cache fill, not a change.
	ExemptDerived Exemption = "derived cache"
	// ExemptEmbeds: resolved embeds kept per URL (embed_caches rows), a
	// cache fill by a read.
	ExemptEmbeds Exemption = "embed cache"
	// ExemptGitSync: the life of a queued Git import or export (running,
	// waiting for a retry, ended), a record of a job like the jobs rows:
	// its queueing, what it wrote and how it failed are events.
	ExemptGitSync Exemption = "git sync progress"
)
