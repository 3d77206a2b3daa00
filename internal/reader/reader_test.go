package reader_test

import (
	"testing"

	"github.com/folio/folio/internal/testkit"
)

func TestReaderSmoke(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		newDocs(t, s)
		p := get(t, s.URL, "", "/s/docs/")
		t.Logf("%d %v\n%s", p.status, p.header, p.body)
	})
}
