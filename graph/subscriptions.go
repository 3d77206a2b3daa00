package graph

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
)

// SubscriptionSettings bound live streams (FOLIO_SUBSCRIPTION_* settings;
// zero fields: the defaults below).
type SubscriptionSettings struct {
	// PerConnection bounds the subscriptions one WebSocket carries at once.
	PerConnection int
	// EventTimeout bounds the work of each event (FOLIO_REQUEST_TIMEOUT):
	// a stream as a whole has no deadline, each event has one.
	EventTimeout time.Duration
	// Heartbeat is how often an open stream is pinged (WebSocket ping,
	// SSE comment); a WebSocket client that misses two pongs is dropped.
	Heartbeat time.Duration
	// Idle ends a WebSocket that carries no subscription for this long.
	Idle time.Duration
	// MaxLifetime ends any stream this long after it began; clients
	// reconnect and resume after their last event id.
	MaxLifetime time.Duration
}

// Defaults of SubscriptionSettings.
const (
	DefaultSubscriptionsPerConnection = 20
	DefaultSubscriptionHeartbeat      = 15 * time.Second
	DefaultSubscriptionIdle           = time.Minute
	DefaultSubscriptionMaxLifetime    = time.Hour
)

func (s SubscriptionSettings) withDefaults() SubscriptionSettings {
	if s.PerConnection <= 0 {
		s.PerConnection = DefaultSubscriptionsPerConnection
	}
	if s.EventTimeout <= 0 {
		s.EventTimeout = 30 * time.Second
	}
	if s.Heartbeat <= 0 {
		s.Heartbeat = DefaultSubscriptionHeartbeat
	}
	if s.Idle <= 0 {
		s.Idle = DefaultSubscriptionIdle
	}
	if s.MaxLifetime <= 0 {
		s.MaxLifetime = DefaultSubscriptionMaxLifetime
	}
	return s
}

// MaxResumed is how many missed events a subscription resumed with after
// (or Last-Event-ID) may be sent; one that missed more is refused and
// reloads what it shows.
const MaxResumed = 1000

// subscribe runs a subscription: the events of the hub that match, each
// made into the subscription's value by build once the caller's access
// was read again, after those it missed since after (when given). When
// build fails (the caller may no longer see the event, or it took longer
// than EventTimeout) the subscription sends that error and ends.
//
// Each event is built with new loaders, with the caller's memberships
// read afresh (FreshLoaders, one statement), under EventTimeout; the
// answer to it is written with those loaders too (loader.Current): a
// stream never shows what an earlier event cached. The next event waits
// until the answer to the last one was written (ack), so loaders are
// never swapped under an answer being written.
func subscribe[T any](r *Resolver, ctx context.Context, after *string, match func(*ent.Event) bool, missed []predicate.Event,
	build func(ctx context.Context, e *ent.Event) (*T, error)) (<-chan *T, error) {
	st, _ := ctx.Value(streamKey{}).(*streamState)
	if st == nil || r.Hub == nil {
		return nil, apperr.Invalidf("subscriptions are served over graphql-transport-ws (WebSocket) or graphql-sse (POST with Accept: text/event-stream)")
	}
	from, err := resumeAfter(ctx, after)
	if err != nil {
		return nil, err
	}
	conn := connOf(ctx)
	if !conn.acquire() {
		return nil, apperr.Invalidf("this connection carries as many subscriptions as FOLIO_SUBSCRIPTIONS_PER_CONNECTION allows (%d)", conn.max)
	}
	// Subscribe before reading what was missed: an event committed in
	// between is then heard (and sent once: sent).
	sub, err := r.Hub.Subscribe(match)
	if err != nil {
		conn.release()
		return nil, &apperr.Error{Kind: apperr.Unavailable, Message: err.Error(), RetryAfter: 5}
	}
	var backlog []*ent.Event
	if from != "" {
		backlog, err = r.Client.Event.Query().Where(append(missed, event.IDGT(from))...).
			Order(ent.Asc(event.FieldID)).Limit(MaxResumed + 1).All(ctx)
		if err == nil && len(backlog) > MaxResumed {
			err = apperr.InvalidField("after", "more than %d events were missed since %s: read the current state again and subscribe without after", MaxResumed, from)
		}
		if err != nil {
			r.Hub.Unsubscribe(sub)
			conn.release()
			return nil, err
		}
	}
	settings := r.SubscriptionSettings.withDefaults()
	out := make(chan *T)
	go func() {
		defer close(out)
		defer conn.release()
		defer r.Hub.Unsubscribe(sub)
		// What was missed is sent first; a live event already among it is
		// not sent again (the hub sends each live event once).
		resumed := make(map[string]bool, len(backlog))
		for _, e := range backlog {
			resumed[e.ID] = true
		}
		// pending: an answer was sent whose write is not acknowledged yet.
		pending := false
		// deliver builds and sends e; false ends the subscription. An
		// event build makes nothing of (nil, nil: an access check alone,
		// passed) is not sent.
		deliver := func(e *ent.Event) bool {
			if pending && !st.waitAck(ctx) {
				return false
			}
			pending = false
			v, ectx, err := buildEvent(r, ctx, settings.EventTimeout, e, build)
			if err != nil {
				if ctx.Err() == nil {
					st.fail(err)
					select {
					case out <- nil:
					case <-ctx.Done():
					}
				}
				return false
			}
			if v == nil {
				return true
			}
			pending = true
			st.current.Set(ectx)
			st.setEventID(e.ID)
			select {
			case out <- v:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, e := range backlog {
			if !deliver(e) {
				return
			}
		}
		for {
			select {
			case e := <-sub.C:
				if !resumed[e.ID] && !deliver(e) {
					return
				}
			case <-sub.Done:
				if err := sub.Err(); err != nil && ctx.Err() == nil {
					if !pending || st.waitAck(ctx) {
						st.fail(&apperr.Error{Kind: apperr.Unavailable, Message: err.Error(), RetryAfter: 1})
						select {
						case out <- nil:
						case <-ctx.Done():
						}
					}
				}
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// buildEvent builds e's value with new loaders under timeout; the loaders'
// context is returned for the answer to be written with. The loaders live
// past the timeout (the answer is written after it), so the timeout
// bounds build alone.
func buildEvent[T any](r *Resolver, ctx context.Context, timeout time.Duration, e *ent.Event,
	build func(ctx context.Context, e *ent.Event) (*T, error)) (*T, context.Context, error) {
	fresh, err := r.FreshLoaders(ctx)
	if err != nil {
		return nil, nil, err
	}
	bctx, cancel := context.WithTimeout(fresh, timeout)
	defer cancel()
	v, err := build(bctx, e)
	if err != nil {
		return nil, nil, err
	}
	return v, fresh, nil
}

// resumeAfter is where a subscription resumes: after, else the request's
// Last-Event-ID (SSE clients send it when they reconnect); "" for none.
func resumeAfter(ctx context.Context, after *string) (string, error) {
	id, field := "", "after"
	if after != nil {
		id = *after
	} else if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Headers != nil {
		id, field = oc.Headers.Get("Last-Event-ID"), "Last-Event-ID"
	}
	if id == "" {
		return "", nil
	}
	if u, err := uuid.Parse(id); err != nil || u.Version() != 7 {
		return "", apperr.InvalidField(field, "%s is not an event id (the eventId of an event received)", field)
	}
	return id, nil
}

// streamKey holds a subscription's streamState in its operation's context.
type streamKey struct{}

// streamState joins a subscription's resolver (which builds its events)
// and the answers the transport writes of them.
type streamState struct {
	current *loader.Current
	ack     chan struct{}
	mu      sync.Mutex
	err     error
	eventID string
}

// waitAck waits until the answer to the last event was written.
func (s *streamState) waitAck(ctx context.Context) bool {
	select {
	case <-s.ack:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *streamState) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

// streamFailing tells whether ctx's subscription is sending the error that
// ends it: the answer is replaced by that error (streams), so errors of
// its fields are nobody's to read.
func streamFailing(ctx context.Context) bool {
	st, _ := ctx.Value(streamKey{}).(*streamState)
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err != nil
}

func (s *streamState) setEventID(id string) {
	s.mu.Lock()
	s.eventID = id
	s.mu.Unlock()
}

func (s *streamState) taken() (error, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err, id := s.err, s.eventID
	s.err, s.eventID = nil, ""
	return err, id
}

// streams is the extension that gives each subscription its streamState
// and its swappable loaders, ends an answer with the error that ended the
// subscription, and marks each answer with its event's id
// (extensions.eventId; the SSE transport sends it as the message's id).
type streams struct{}

var (
	_ graphql.OperationInterceptor = streams{}
	_ graphql.ResponseInterceptor  = streams{}
)

func (streams) ExtensionName() string                          { return "Streams" }
func (streams) Validate(schema graphql.ExecutableSchema) error { return nil }

func (streams) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
		return next(ctx)
	}
	ctx, current := loader.WithCurrent(ctx)
	return next(context.WithValue(ctx, streamKey{}, &streamState{current: current, ack: make(chan struct{}, 1)}))
}

func (streams) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	st, _ := ctx.Value(streamKey{}).(*streamState)
	if st == nil {
		return next(ctx)
	}
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	defer func() {
		select {
		case st.ack <- struct{}{}:
		default:
		}
	}()
	err, id := st.taken()
	if err != nil {
		return &graphql.Response{Errors: gqlerror.List{presentError(ctx, err)}}
	}
	if id != "" {
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		resp.Extensions["eventId"] = id
	}
	return resp
}

// connKey holds a connection's connState.
type connKey struct{}

// connState counts the subscriptions of one connection (a WebSocket, or
// an SSE request's one) and ends an idle WebSocket.
type connState struct {
	max    int
	idle   time.Duration
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	n      int
	timer  *time.Timer
}

// errIdle ends a WebSocket that carried no subscription for Idle.
var errIdle = errors.New("the connection carried no subscription for FOLIO_SUBSCRIPTION_IDLE")

// errLifetime ends a stream at FOLIO_SUBSCRIPTION_MAX_LIFETIME.
var errLifetime = errors.New("the stream reached FOLIO_SUBSCRIPTION_MAX_LIFETIME: reconnect and resume after the last event id")

// withConn gives ctx a connection's bounds: at most max subscriptions at
// once, an end after lifetime, and (idle > 0) an end after idle without
// any subscription. stop releases it.
func withConn(ctx context.Context, max int, idle, lifetime time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &connState{max: max, idle: idle, cancel: cancel}
	life := time.AfterFunc(lifetime, func() { cancel(errLifetime) })
	if idle > 0 {
		c.timer = time.AfterFunc(idle, func() { cancel(errIdle) })
	}
	return context.WithValue(ctx, connKey{}, c), func() {
		life.Stop()
		if c.timer != nil {
			c.timer.Stop()
		}
		cancel(context.Canceled)
	}
}

func connOf(ctx context.Context) *connState {
	c, _ := ctx.Value(connKey{}).(*connState)
	return c
}

func (c *connState) acquire() bool {
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= c.max {
		return false
	}
	c.n++
	if c.timer != nil {
		c.timer.Stop()
	}
	return true
}

func (c *connState) release() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.n == 0 && c.timer != nil {
		c.timer.Reset(c.idle)
	}
}
