// Command testdb prepares the PostgreSQL half of `make test`: when a server
// answers at TEST_DATABASE_URL (default: the local one), it creates the test
// database if it is missing. It prints one line saying which databases the
// suite will run on and why PostgreSQL is skipped, if it is. When the line
// names PostgreSQL the Makefile requires it in the tests, so a server that
// answered here cannot be skipped silently later.
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/folio/folio/internal/testkit"
)

func main() {
	target := os.Getenv("TEST_DATABASE_URL")
	if target == "" {
		target = testkit.DefaultPostgresURL
	}
	shown := redact(target)
	if err := prepare(target); err != nil {
		fmt.Printf("SQLite only; PostgreSQL skipped: %s: %v (start PostgreSQL or set TEST_DATABASE_URL)\n", shown, err)
		return
	}
	fmt.Printf("SQLite and PostgreSQL (%s)\n", shown)
}

// prepare makes sure the database of target exists and answers.
func prepare(target string) error {
	err := ping(target)
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "3D000" { // 3D000: no such database
		return err
	}
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin := *u
	admin.Path = "/postgres"
	db, err := sql.Open("postgres", admin.String())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + pq.QuoteIdentifier(name)); err != nil {
		return fmt.Errorf("creating database %s: %w", name, err)
	}
	fmt.Fprintf(os.Stderr, "created PostgreSQL database %s\n", name)
	return ping(target)
}

func ping(target string) error {
	u := target
	if !strings.Contains(u, "connect_timeout") {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "connect_timeout=" + fmt.Sprint(int((3 * time.Second).Seconds()))
	}
	db, err := sql.Open("postgres", u)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Ping()
}

// redact hides a password in the URL it prints.
func redact(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "TEST_DATABASE_URL"
	}
	return u.Redacted()
}
