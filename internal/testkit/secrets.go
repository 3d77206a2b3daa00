package testkit

import (
	"crypto/sha256"
	"testing"

	"github.com/folio/folio/internal/secrets"
)

// SecretKey is the FOLIO_SECRET_KEY of test servers on PostgreSQL, which
// requires one (SQLite servers make their key file), derived from a fixed
// text; tests that start servers themselves on PostgreSQL set it too.
var SecretKey = secrets.Key(sha256.Sum256([]byte("folio test secret key")))

// Open opens a value sealed for area read from the server's database (a
// test checking a stored secret): the test fails when it does not open.
func (s *Server) Open(t testing.TB, area, sealed string) string {
	t.Helper()
	v, err := s.App.Resolver.Secrets.Open(area, sealed)
	if err != nil {
		t.Fatalf("open %s: %v", area, err)
	}
	return v
}

// Seal seals value for area with the server's key, for tests that write
// rows straight through ent.
func (s *Server) Seal(area, value string) string { return s.App.Resolver.Secrets.Seal(area, value) }
