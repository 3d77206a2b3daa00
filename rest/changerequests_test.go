package rest_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestChangeRequestNumbersUnderConcurrency: 20 creations at once get 1..20.
func TestChangeRequestNumbersUnderConcurrency(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		var wg sync.WaitGroup
		numbers := make([]int, 20)
		for i := range numbers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.Request(t, f.editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": fmt.Sprint(i)})
				if r.Status != 201 {
					t.Errorf("create: %d %s", r.Status, r.Body)
					return
				}
				var cr struct{ Number int }
				r.Decode(t, &cr)
				numbers[i] = cr.Number
			}()
		}
		wg.Wait()
		seen := map[int]bool{}
		for _, n := range numbers {
			if n < 1 || n > 20 || seen[n] {
				t.Fatalf("numbers %v", numbers)
			}
			seen[n] = true
		}
	})
}
