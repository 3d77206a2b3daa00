package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// eventsSchema makes PostgreSQL announce every event row inserted: a
// trigger sends its id on EventsChannel in the inserting transaction, so
// the NOTIFY goes out at commit (never for a rollback) and recording an
// event costs its write the one INSERT. The channel names the schema:
// databases kept in schemas of one PostgreSQL database (the tests) do not
// hear each other. SQLite has no notification; one process hears its own
// commits (graph.Notifier) and others poll.
func eventsSchema(dialect string) []string {
	if dialect != dialectPostgres {
		return nil
	}
	return []string{
		`CREATE OR REPLACE FUNCTION folio_event_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('folio_events:' || current_schema(), NEW.id);
	RETURN NULL;
END $$`,
		`DROP TRIGGER IF EXISTS events_notify ON events`,
		`CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION folio_event_notify()`,
	}
}

// EventsChannel is the PostgreSQL channel that carries the ids of the
// events inserted in d's schema (eventsSchema).
func (d *DB) EventsChannel(ctx context.Context) (string, error) {
	var schema string
	if err := d.SQL.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", err
	}
	return "folio_events:" + schema, nil
}

// ListenEvents hears the ids of the events committed in d's schema by any
// instance (EventsChannel), until ctx ends. An empty id says notifications
// may have been missed (the listening connection was lost and made again):
// the listener then reads the table for what it did not hear. On SQLite,
// which has no notification, the channel is nil.
func (d *DB) ListenEvents(ctx context.Context) (<-chan string, error) {
	if d.dsn == "" {
		return nil, nil
	}
	channel, err := d.EventsChannel(ctx)
	if err != nil {
		return nil, err
	}
	l := pq.NewListener(d.dsn, 100*time.Millisecond, 10*time.Second, nil)
	if err := l.Listen(channel); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen for events: %w", err)
	}
	ids := make(chan string, 256)
	go func() {
		defer l.Close()
		defer close(ids)
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-l.Notify:
				id := "" // nil: the connection was made again
				if n != nil {
					id = n.Extra
				}
				select {
				case ids <- id:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return ids, nil
}
