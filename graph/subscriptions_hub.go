package graph

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/event"
)

// Hub hands the events committed on any instance to this instance's
// subscriptions. It hears of them three ways: this instance's commits
// (Committed, at once), PostgreSQL's notifications (every instance's
// commits, ids only) and, where there are no notifications (SQLite) or
// some may have been missed (a lost listening connection), a poll of the
// events table every Poll. An event heard twice is handed on once; each is
// read from the table once, in one statement for all those heard together,
// and only while someone is subscribed: an idle hub makes no statement.
type Hub struct {
	Client *ent.Client
	Poll   time.Duration
	// MaxSubscribers bounds the subscriptions of this instance
	// (FOLIO_SUBSCRIPTIONS_PER_INSTANCE; 0: none).
	MaxSubscribers int
	Logger         *slog.Logger

	committed chan []string
	mu        sync.Mutex
	subs      map[*HubSubscriber]struct{}
	seen      map[string]time.Time // ids handed on lately, by when
	missed    bool                 // notifications may have been missed: poll once
	stopped   bool                 // the instance is draining: no new subscriber
}

// hubBuffer is how many events a subscriber may have waiting; one that
// falls further behind is dropped (ErrSlowSubscriber) rather than buffered
// without limit.
const hubBuffer = 64

// hubLookBehind is how far behind the newest event a poll reads again:
// an event's id (a UUIDv7) is taken before its write commits, so a write
// that took longer commits an older id after a newer one.
const hubLookBehind = 10 * time.Second

// ErrSlowSubscriber ends a subscription that did not keep up.
var ErrSlowSubscriber = errors.New("the subscription fell too far behind the events and was ended; resume with the last event id")

// ErrHubStopped ends the subscriptions of an instance that is shutting
// down, and refuses new ones: clients reconnect (to another instance) and
// resume.
var ErrHubStopped = errors.New("the server is shutting down: reconnect and resume after the last event id")

// ErrTooManySubscriptions refuses a subscription over
// FOLIO_SUBSCRIPTIONS_PER_INSTANCE.
var ErrTooManySubscriptions = errors.New("this server has as many subscriptions as FOLIO_SUBSCRIPTIONS_PER_INSTANCE allows")

// NewHub makes a hub over client.
func NewHub(client *ent.Client, poll time.Duration, maxSubscribers int, logger *slog.Logger) *Hub {
	if poll <= 0 {
		poll = time.Second
	}
	return &Hub{Client: client, Poll: poll, MaxSubscribers: maxSubscribers, Logger: logger,
		committed: make(chan []string, 256), subs: map[*HubSubscriber]struct{}{}, seen: map[string]time.Time{}}
}

// HubSubscriber receives the events its filter accepts on C, in the order
// the hub hears them, until Done closes (Err says why).
type HubSubscriber struct {
	C     chan *ent.Event
	Done  chan struct{}
	match func(*ent.Event) bool
	err   error
}

// Err is why the subscriber was dropped (after Done closed).
func (s *HubSubscriber) Err() error { return s.err }

// Subscribe adds a subscriber for the events match accepts.
func (h *Hub) Subscribe(match func(*ent.Event) bool) (*HubSubscriber, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return nil, ErrHubStopped
	}
	if h.MaxSubscribers > 0 && len(h.subs) >= h.MaxSubscribers {
		return nil, ErrTooManySubscriptions
	}
	s := &HubSubscriber{C: make(chan *ent.Event, hubBuffer), Done: make(chan struct{}), match: match}
	h.subs[s] = struct{}{}
	return s, nil
}

// Unsubscribe removes s (it may have been dropped already).
func (h *Hub) Unsubscribe(s *HubSubscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop(s, nil)
}

func (h *Hub) drop(s *HubSubscriber, err error) {
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		s.err = err
		close(s.Done)
	}
}

// Subscribers is how many subscriptions the hub serves.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Committed hears this instance's commits (graph.Notifier); it never
// blocks a write: when the queue is full the next tick polls instead.
func (h *Hub) Committed(ids []string) {
	select {
	case h.committed <- ids:
	default:
		h.mu.Lock()
		h.missed = true
		h.mu.Unlock()
	}
}

// Run hands events on until stop closes (the drain: every subscription
// ends with ErrHubStopped) or ctx ends. notified carries
// the ids PostgreSQL announces ("" when some may have been missed); nil
// (SQLite) makes the hub poll while anyone is subscribed.
func (h *Hub) Run(stop <-chan struct{}, ctx context.Context, notified <-chan string) {
	t := time.NewTicker(h.Poll)
	defer t.Stop()
	for {
		var ids []string
		select {
		case <-stop:
			h.stop()
			return
		case <-ctx.Done():
			h.stop()
			return
		case ids = <-h.committed:
		case id, ok := <-notified:
			if !ok {
				notified = nil // the listener ended: poll from now on
				h.setMissed()
				continue
			}
			ids = h.drainNotified(id, notified)
		case <-t.C:
			h.prune()
			if h.shouldPoll(notified == nil) {
				h.poll(ctx)
			}
			continue
		}
		h.hand(ctx, ids)
	}
}

// drainNotified gathers the ids already waiting with id, so that they are
// read together.
func (h *Hub) drainNotified(id string, notified <-chan string) []string {
	ids := []string{}
	add := func(id string) {
		if id == "" {
			h.setMissed()
		} else {
			ids = append(ids, id)
		}
	}
	add(id)
	for len(ids) < 500 {
		select {
		case id, ok := <-notified:
			if !ok {
				return ids
			}
			add(id)
		default:
			return ids
		}
	}
	return ids
}

// stop ends every subscription and refuses new ones.
func (h *Hub) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	for s := range h.subs {
		h.drop(s, ErrHubStopped)
	}
}

func (h *Hub) setMissed() {
	h.mu.Lock()
	h.missed = true
	h.mu.Unlock()
}

// shouldPoll: someone is subscribed, and nothing announces every commit
// (no notifications), or some announcements were missed.
func (h *Hub) shouldPoll(noNotifications bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) == 0 {
		return false
	}
	poll := noNotifications || h.missed
	h.missed = false
	return poll
}

// hand reads the events of ids not handed on yet and hands them on.
func (h *Hub) hand(ctx context.Context, ids []string) {
	h.mu.Lock()
	fresh := ids[:0:0]
	for _, id := range ids {
		if _, dup := h.seen[id]; !dup {
			fresh = append(fresh, id)
		}
	}
	if len(h.subs) == 0 || len(fresh) == 0 {
		// Nobody listens: remember the ids, read nothing.
		now := time.Now()
		for _, id := range fresh {
			h.seen[id] = now
		}
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	evs, err := h.Client.Event.Query().Where(event.IDIn(fresh...)).Order(ent.Asc(event.FieldID)).All(ctx)
	if err != nil {
		if ctx.Err() == nil {
			h.Logger.Error("subscriptions: reading events failed", "err", err)
			h.setMissed()
		}
		return
	}
	h.fanOut(evs)
}

// poll reads the events of the last hubLookBehind, at most 500 a tick
// (those handed on already are skipped).
func (h *Hub) poll(ctx context.Context) {
	from := v7Floor(time.Now().Add(-hubLookBehind))
	evs, err := h.Client.Event.Query().Where(event.IDGT(from)).Order(ent.Asc(event.FieldID)).Limit(500).All(ctx)
	if err != nil {
		if ctx.Err() == nil {
			h.Logger.Error("subscriptions: polling events failed", "err", err)
		}
		return
	}
	h.fanOut(evs)
}

// fanOut hands each event not handed on yet to the subscribers that want
// it; one whose buffer is full is dropped.
func (h *Hub) fanOut(evs []*ent.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	for _, e := range evs {
		if _, dup := h.seen[e.ID]; dup {
			continue
		}
		h.seen[e.ID] = now
		for s := range h.subs {
			if !s.match(e) {
				continue
			}
			select {
			case s.C <- e:
			default:
				h.drop(s, ErrSlowSubscriber)
			}
		}
	}
}

// prune forgets the ids handed on longer ago than a poll reads again.
func (h *Hub) prune() {
	h.mu.Lock()
	defer h.mu.Unlock()
	cutoff := time.Now().Add(-2 * hubLookBehind)
	for id, at := range h.seen {
		if at.Before(cutoff) {
			delete(h.seen, id)
		}
	}
}
