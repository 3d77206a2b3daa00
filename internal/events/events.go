// Package events is what every write records: who (the actor), through
// what (the source), what (an action of the catalog), on what (one primary
// target) and an allow-listed payload, in GitBook's AuditEvent terms. The
// application's one hook (graph/events.go: Resolver.write) opens a scope
// per write, collects the events the write adds and inserts them in the
// write's own transaction; Guard refuses an ent mutation made outside such
// a scope, so an area cannot forget to record.
package events

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Sources of a change (AuditEvent.source).
const (
	SourceUI       = "ui"       // a session request from Folio's own pages
	SourceAPI      = "api"      // REST or GraphQL with a token
	SourceWorkflow = "workflow" // a background job
	SourceScript   = "script"   // the command line
)

// Actor types (AuditEventActor.type).
const (
	ActorUser        = "user"
	ActorIntegration = "integration"
	ActorSystem      = "system"
)

// Actor is who made a change; an API token acts as its user.
type Actor struct {
	Type, ID, Label string
}

// Target is what a change was made to.
type Target struct {
	Type, ID, Label string
}

// Event is one change, as a write describes it; the hook adds the
// origin (actor, source, correlation id), the id and the time.
type Event struct {
	Action string
	// OrganizationID is the organization the change belongs to ("" for
	// a user's own things, such as API tokens).
	OrganizationID string
	Target         Target
	// SpaceID and ChangeRequestID place the change for subscriptions.
	SpaceID, ChangeRequestID string
	// Payload holds only keys the action allows (Catalog); values are
	// ids, titles, roles, names of changed fields: never a secret or a
	// body.
	Payload map[string]any
}

// Origin is who and what a context's writes come from.
type Origin struct {
	Source string
	Actor  Actor
	// TokenID is the API token the request authenticated with; it goes in
	// every event's payload as tokenId.
	TokenID string
	// ClientID is the OAuth client that obtained that token, if one did;
	// it goes in every event's payload as oauthClientId.
	ClientID string
}

type originKey struct{}
type correlationKey struct{}

// WithOrigin sets the origin of the writes made with ctx.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginOf is the origin set on ctx; without one, the system through a
// background job (writes no request made).
func OriginOf(ctx context.Context) Origin {
	if o, ok := ctx.Value(originKey{}).(Origin); ok {
		return o
	}
	return Origin{Source: SourceWorkflow, Actor: Actor{Type: ActorSystem, ID: "folio", Label: "Folio"}}
}

// WithCorrelationID sets the id shared by every event of one request (its
// request id) or job (its job id).
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID is the id WithCorrelationID set, or "".
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// Scope collects the events of one write. Writes is the number of ent
// mutations Guard saw in it: a scope that wrote without adding an event is
// a write that forgot to record, and the hook refuses it.
type Scope struct {
	mu     sync.Mutex
	writes int
	events []Event
}

type scopeKey struct{}
type exemptKey struct{}

// Begin opens a write's scope.
func Begin(ctx context.Context) (context.Context, *Scope) {
	s := &Scope{}
	return context.WithValue(ctx, scopeKey{}, s), s
}

// Add records e in the scope of ctx; it panics outside one (a write made
// outside the hook is a programming error the tests must see).
func Add(ctx context.Context, e Event) {
	s, _ := ctx.Value(scopeKey{}).(*Scope)
	if s == nil {
		panic("events.Add outside a write (graph.Resolver.write)")
	}
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

// Events are the events added to the scope.
func (s *Scope) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// Writes is the number of ent mutations made in the scope.
func (s *Scope) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// Exempt marks ctx's writes as telemetry that records nothing (site
// insights, pings, last-seen times, rate counters). why names the kind, for
// the reader of the code: the exemptions are listed in exempt.go.
func Exempt(ctx context.Context, why Exemption) context.Context {
	return context.WithValue(ctx, exemptKey{}, why)
}

// IsExempt tells whether ctx's writes are telemetry.
func IsExempt(ctx context.Context) bool {
	_, ok := ctx.Value(exemptKey{}).(Exemption)
	return ok
}

// Record is an event as stored: Event plus its origin, id and time.
type Record struct {
	Event
	ID            string
	OccurredAt    time.Time
	Origin        Origin
	CorrelationID string
}

// Complete makes the records of a scope's events, checking each action is
// in the catalog and each payload key allowed for it.
func Complete(ctx context.Context, now time.Time, evs []Event) ([]Record, error) {
	o := OriginOf(ctx)
	corr := CorrelationID(ctx)
	out := make([]Record, len(evs))
	for i, e := range evs {
		a, ok := Lookup(e.Action)
		if !ok {
			return nil, fmt.Errorf("event action %q is not in the catalog (internal/events)", e.Action)
		}
		for k := range e.Payload {
			if !a.allows(k) {
				return nil, fmt.Errorf("event %s: payload key %q is not allowed (internal/events catalog)", e.Action, k)
			}
		}
		if o.TokenID != "" {
			p := make(map[string]any, len(e.Payload)+2)
			for k, v := range e.Payload {
				p[k] = v
			}
			p["tokenId"] = o.TokenID
			if o.ClientID != "" {
				p["oauthClientId"] = o.ClientID
			}
			e.Payload = p
		}
		out[i] = Record{Event: e, ID: NewID(), OccurredAt: now, Origin: o, CorrelationID: corr}
	}
	return out, nil
}

// NewID is a new event id: a UUIDv7, so ids sort by time.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}
