package db

import "context"

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
