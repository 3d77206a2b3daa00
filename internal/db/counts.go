package db

import (
	"context"
	"database/sql"
	"fmt"
)

// Kept counts: the totals of the long lists every member of an
// organization sees alike, kept in list_counts by triggers, so that a page
// of such a list reads its total instead of counting the rows. Triggers
// keep them in the writing transaction whatever the write path (an invite,
// an SSO join, a removal, a purge, raw SQL): a rolled back write changes no
// count.
//
// On PostgreSQL each kept count is one row that every write to its list
// updates: writers of one list of one organization (members joining, change
// requests opened) queue on that row until they commit. Those writes are
// one row each and rare next to reads; the queue is accepted.
const (
	// CountMembers: an organization's members (parent: the organization).
	CountMembers = "members"
	// CountTeams: an organization's teams.
	CountTeams = "teams"
)

// CountChangeRequests names the kept count of an organization's change
// requests with status in its live spaces (not deleted): the list an admin
// of the organization sees.
func CountChangeRequests(status string) string { return "change_requests:" + status }

// countsVersion names what the triggers count: when it changes (a list
// added, a rule changed), the next start counts every list afresh.
const countsVersion = "1"

// countsMarker is the row that says which countsVersion the counts hold.
const countsMarker = "folio:counted"

// keepCounts installs list_counts and its triggers, idempotently, in one
// transaction; on a new table (or a new countsVersion) it counts every
// list from the rows. On PostgreSQL the triggers are made first: making
// them locks their tables against writes until the commit, so no write
// falls between the count and the triggers.
//
// Counts already kept under this countsVersion need nothing: a start then
// takes no lock on the counted tables (remaking a trigger would lock its
// table against reads too, on PostgreSQL, while instances serve).
func keepCounts(ctx context.Context, raw *sql.DB, dialect string) error {
	var kept int
	if raw.QueryRowContext(ctx, rebind(dialect, `SELECT count(*) FROM list_counts WHERE list = ? AND parent = ?`), countsMarker, countsVersion).Scan(&kept) == nil && kept > 0 {
		return nil // (an error: no table yet, made below)
	}
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := countsSchemaSQLite
	if dialect == dialectPostgres {
		stmts = countsSchemaPostgres
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%w\n%s", err, stmt)
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, rebind(dialect, `SELECT count(*) FROM list_counts WHERE list = ? AND parent = ?`), countsMarker, countsVersion).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		for _, stmt := range countsBackfill {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%w\n%s", err, stmt)
			}
		}
		if _, err := tx.ExecContext(ctx, rebind(dialect, `INSERT INTO list_counts (list, parent, n) VALUES (?, ?, 0)`), countsMarker, countsVersion); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// rebind turns ?, ? into $1, $2 on PostgreSQL.
func rebind(dialect, stmt string) string {
	if dialect != dialectPostgres {
		return stmt
	}
	out, k := []byte{}, 0
	for i := 0; i < len(stmt); i++ {
		if stmt[i] == '?' {
			k++
			out = append(out, fmt.Sprintf("$%d", k)...)
			continue
		}
		out = append(out, stmt[i])
	}
	return string(out)
}

// countsBackfill counts every kept list from its rows.
var countsBackfill = []string{
	`DELETE FROM list_counts`,
	`INSERT INTO list_counts (list, parent, n) SELECT 'members', organization_id, count(*) FROM members GROUP BY organization_id`,
	`INSERT INTO list_counts (list, parent, n) SELECT 'teams', organization_id, count(*) FROM teams GROUP BY organization_id`,
	`INSERT INTO list_counts (list, parent, n) SELECT 'change_requests:' || c.status, s.organization_id, count(*)
		FROM change_requests c JOIN spaces s ON s.id = c.space_id WHERE s.deleted_at IS NULL
		GROUP BY c.status, s.organization_id`,
}

var countsSchemaPostgres = []string{
	`CREATE TABLE IF NOT EXISTS list_counts (
		list text NOT NULL,
		parent text NOT NULL,
		n bigint NOT NULL,
		PRIMARY KEY (list, parent)
	)`,
	`CREATE OR REPLACE FUNCTION folio_count(l text, p text, d bigint) RETURNS void LANGUAGE sql AS $$
		INSERT INTO list_counts (list, parent, n) VALUES (l, p, d)
		ON CONFLICT (list, parent) DO UPDATE SET n = list_counts.n + EXCLUDED.n
	$$`,
	// members and teams: the organization is on the row, and immutable.
	`CREATE OR REPLACE FUNCTION folio_count_org_rows() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF TG_OP = 'INSERT' THEN
			PERFORM folio_count(TG_ARGV[0], NEW.organization_id, 1);
		ELSE
			PERFORM folio_count(TG_ARGV[0], OLD.organization_id, -1);
		END IF;
		RETURN NULL;
	END $$`,
	`DROP TRIGGER IF EXISTS list_counts_members ON members`,
	`CREATE TRIGGER list_counts_members AFTER INSERT OR DELETE ON members FOR EACH ROW EXECUTE FUNCTION folio_count_org_rows('members')`,
	`DROP TRIGGER IF EXISTS list_counts_teams ON teams`,
	`CREATE TRIGGER list_counts_teams AFTER INSERT OR DELETE ON teams FOR EACH ROW EXECUTE FUNCTION folio_count_org_rows('teams')`,
	// change requests: counted in their space's organization while the
	// space is live; a change of status moves the row between counts.
	`CREATE OR REPLACE FUNCTION folio_count_change_requests() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF TG_OP <> 'INSERT' THEN
			PERFORM folio_count('change_requests:' || OLD.status, s.organization_id, -1)
				FROM spaces s WHERE s.id = OLD.space_id AND s.deleted_at IS NULL;
		END IF;
		IF TG_OP <> 'DELETE' THEN
			PERFORM folio_count('change_requests:' || NEW.status, s.organization_id, 1)
				FROM spaces s WHERE s.id = NEW.space_id AND s.deleted_at IS NULL;
		END IF;
		RETURN NULL;
	END $$`,
	`DROP TRIGGER IF EXISTS list_counts_change_requests ON change_requests`,
	`CREATE TRIGGER list_counts_change_requests AFTER INSERT OR DELETE ON change_requests FOR EACH ROW EXECUTE FUNCTION folio_count_change_requests()`,
	`DROP TRIGGER IF EXISTS list_counts_change_requests_status ON change_requests`,
	`CREATE TRIGGER list_counts_change_requests_status AFTER UPDATE OF status ON change_requests FOR EACH ROW
		WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION folio_count_change_requests()`,
	// A space deleted, restored or moved to another organization takes
	// its change requests' counts with it. (A space is purged only once
	// deleted, after its change requests: nothing to count then.)
	`CREATE OR REPLACE FUNCTION folio_count_space_change_requests() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF OLD.deleted_at IS NULL THEN
			PERFORM folio_count('change_requests:' || status, OLD.organization_id, -count(*))
				FROM change_requests WHERE space_id = OLD.id GROUP BY status;
		END IF;
		IF NEW.deleted_at IS NULL THEN
			PERFORM folio_count('change_requests:' || status, NEW.organization_id, count(*))
				FROM change_requests WHERE space_id = NEW.id GROUP BY status;
		END IF;
		RETURN NULL;
	END $$`,
	`DROP TRIGGER IF EXISTS list_counts_spaces ON spaces`,
	`CREATE TRIGGER list_counts_spaces AFTER UPDATE OF deleted_at, organization_id ON spaces FOR EACH ROW
		WHEN ((OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.deleted_at IS NULL) OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
		EXECUTE FUNCTION folio_count_space_change_requests()`,
}

// countsSchemaSQLite is countsSchemaPostgres in SQLite's triggers, which
// have no functions: each is its statements. (An upsert from a SELECT
// needs its WHERE, which SQLite's grammar asks for.)
var countsSchemaSQLite = func() []string {
	add := func(list, parent, d string) string {
		return `INSERT INTO list_counts (list, parent, n) VALUES (` + list + `, ` + parent + `, ` + d + `)
			ON CONFLICT (list, parent) DO UPDATE SET n = n + excluded.n;`
	}
	crs := func(row, d string) string {
		return `INSERT INTO list_counts (list, parent, n)
			SELECT 'change_requests:' || ` + row + `.status, s.organization_id, ` + d + ` FROM spaces s
			WHERE s.id = ` + row + `.space_id AND s.deleted_at IS NULL
			ON CONFLICT (list, parent) DO UPDATE SET n = n + excluded.n;`
	}
	spaceCRs := func(row, sign string) string {
		return `INSERT INTO list_counts (list, parent, n)
			SELECT 'change_requests:' || status, ` + row + `.organization_id, ` + sign + `count(*) FROM change_requests
			WHERE space_id = ` + row + `.id AND ` + row + `.deleted_at IS NULL GROUP BY status
			ON CONFLICT (list, parent) DO UPDATE SET n = n + excluded.n;`
	}
	trigger := func(name, on, body string) []string {
		return []string{
			`DROP TRIGGER IF EXISTS ` + name,
			`CREATE TRIGGER ` + name + ` ` + on + ` BEGIN ` + body + ` END`,
		}
	}
	out := []string{`CREATE TABLE IF NOT EXISTS list_counts (
		list TEXT NOT NULL,
		parent TEXT NOT NULL,
		n INTEGER NOT NULL,
		PRIMARY KEY (list, parent)
	)`}
	for _, t := range []string{"members", "teams"} {
		out = append(out, trigger("list_counts_"+t+"_insert", "AFTER INSERT ON "+t, add("'"+t+"'", "NEW.organization_id", "1"))...)
		out = append(out, trigger("list_counts_"+t+"_delete", "AFTER DELETE ON "+t, add("'"+t+"'", "OLD.organization_id", "-1"))...)
	}
	out = append(out, trigger("list_counts_change_requests_insert", "AFTER INSERT ON change_requests", crs("NEW", "1"))...)
	out = append(out, trigger("list_counts_change_requests_delete", "AFTER DELETE ON change_requests", crs("OLD", "-1"))...)
	out = append(out, trigger("list_counts_change_requests_status",
		"AFTER UPDATE OF status ON change_requests WHEN OLD.status IS NOT NEW.status", crs("OLD", "-1")+crs("NEW", "1"))...)
	out = append(out, trigger("list_counts_spaces",
		"AFTER UPDATE OF deleted_at, organization_id ON spaces WHEN (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL) OR OLD.organization_id IS NOT NEW.organization_id",
		spaceCRs("OLD", "-")+spaceCRs("NEW", ""))...)
	return out
}()
