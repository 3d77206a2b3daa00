package graph_test

import (
	"fmt"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// The statement rows of issue 11's table, as make bench's ratio convention
// reads them (internal/perf/ratios: BenchmarkRatio…/small and /large,
// large ÷ small of the first reported metric). The tests
// TestMemberTeamsEdgesStatementCount and TestTreeBodiesStatementCount hold
// the same figures equal; these print them.

// BenchmarkRatioMembersTeamsStatements: organization → members → user +
// teams, 100 members (small) and 200 (large).
func BenchmarkRatioMembersTeamsStatements(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			for _, size := range []struct {
				name    string
				members int
			}{{"small", 100}, {"large", 200}} {
				owner, org, _ := membersInTeams(b, s, size.members)
				b.Run(size.name, func(b *testing.B) {
					statementsPerOp(b, s, func() {
						s.MustGraphQL(b, owner.Token, memberTeamsTree, map[string]any{"id": org})
					})
				})
			}
		})
	}
}

// BenchmarkRatioPageBodiesStatements: the page tree with bodies and
// documents over 10 spaces (small) and 20 (large).
func BenchmarkRatioPageBodiesStatements(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			for _, size := range []struct {
				name   string
				spaces int
			}{{"small", 10}, {"large", 20}} {
				u, org := treeOrg(b, s, fmt.Sprintf("bodies%d@example.com", size.spaces), size.spaces, 2, treeBody)
				vars := map[string]any{"org": org}
				s.MustGraphQL(b, u.Token, orgTree, vars) // stores the documents
				b.Run(size.name, func(b *testing.B) {
					statementsPerOp(b, s, func() { s.MustGraphQL(b, u.Token, orgTree, vars) })
				})
			}
		})
	}
}

// statementsPerOp runs op b.N times and reports its SQL statements per run.
func statementsPerOp(b *testing.B, s *testkit.Server, op func()) {
	before := s.Statements()
	for i := 0; i < b.N; i++ {
		op()
	}
	b.ReportMetric(float64(s.Statements()-before)/float64(b.N), "stmts/op")
}
