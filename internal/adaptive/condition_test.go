package adaptive

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestCompileValid(t *testing.T) {
	s := mustSchema(t, fullSchema)
	cases := []struct {
		src    string
		claims []string
	}{
		{`visitor.claims.unsigned.isBeta`, []string{"unsigned.isBeta"}},
		{`visitor.claims.plan == "pro" && !visitor.claims.internal`, []string{"internal", "plan"}},
		{`visitor.claims.plan in ["pro", "team"] or visitor.claims.internal`, []string{"internal", "plan"}},
		{`visitor.claims["plan"] == "pro"`, []string{"plan"}},
		{`visitor.claims?.plan == "pro"`, []string{"plan"}},
		{`visitor.claims.seats >= 10 && visitor.claims.seats < 100.5`, []string{"seats"}},
		{`"admin" in visitor.claims.roles`, []string{"roles"}},
		{`"admin" not in visitor.claims.roles`, []string{"roles"}},
		{`visitor.claims.roles[0] == "admin"`, []string{"roles"}},
		{`len(visitor.claims.roles) > 1 || 3 in visitor.claims.scores`, []string{"roles", "scores"}},
		{`visitor.claims.flags[0]`, []string{"flags"}},
		{`visitor.claims.org.name startsWith "Acme" && visitor.claims.org.billing.paid`, []string{"org.billing.paid", "org.name"}},
		{`lower(visitor.claims.unsigned.lang) == "fr"`, []string{"unsigned.lang"}},
		{`visitor.claims.email matches "@example\\.com$"`, []string{"email"}},
		{`visitor.claims.email endsWith "@example.com" and visitor.claims.email contains "."`, []string{"email"}},
		{`visitor.claims.internal ? visitor.claims.seats > 1 : visitor.claims.unsigned.isBeta`, []string{"internal", "seats", "unsigned.isBeta"}},
		{`visitor.claims.unsigned.isBeta || visitor.claims.unsigned.isBeta`, []string{"unsigned.isBeta"}},
		{"visitor.claims.internal\n&& visitor.claims.unsigned.isBeta", []string{"internal", "unsigned.isBeta"}},
		{`true`, []string{}},
		{`1 + 1 == 2`, []string{}},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			cond, err := Compile(c.src, s)
			if err != nil {
				t.Fatal(err)
			}
			if cond.Source() != c.src {
				t.Fatalf("source %q", cond.Source())
			}
			if got := cond.Claims(); !reflect.DeepEqual(got, c.claims) {
				t.Fatalf("claims %v, want %v", got, c.claims)
			}
		})
	}
}

func TestCompileInvalid(t *testing.T) {
	s := mustSchema(t, fullSchema)
	cases := []struct{ src, message string }{
		// syntax
		{`visitor.claims.plan == "pro" &&`, "line 1, column 31: unexpected token EOF"},
		{`visitor.claims.plan == "pro" && (`, "line 1, column 33: unexpected token EOF"},
		{`visitor.claims.plan = "pro"`, `line 1, column 21: unexpected token Operator("=")`},
		{`visitor.claims.plan == 'pro`, "line 1, column 28: literal not terminated"},
		{"visitor.claims.internal &&\n  visitor.claims.plan ===", `line 2, column 25: unexpected token Operator("=")`},
		{``, "is empty"},
		{" \n\t", "is empty"},
		{"a\x00", "contains a NUL character"},
		// names and claims
		{`visitor.claims.plan == "pro" && !visitor.claims.nope`, "line 1, column 49: unknown claim visitor.claims.nope"},
		{"visitor.claims.internal &&\n  visitor.claims.unsigned.nope", "line 2, column 27: unknown claim visitor.claims.unsigned.nope"},
		{`visitor.claims.isBeta`, "line 1, column 16: unknown claim visitor.claims.isBeta; did you mean visitor.claims.unsigned.isBeta?"},
		{`visitor.claims.unsigned.Plan == "pro"`, "line 1, column 25: unknown claim visitor.claims.unsigned.Plan; did you mean visitor.claims.plan?"},
		{`"café" == visitor.claims.nope`, "line 1, column 26: unknown claim visitor.claims.nope"},
		{"\"日本\" ==\n\t visitor.claims.nope", "line 2, column 18: unknown claim visitor.claims.nope"},
		{`visitor.claims.org.nope == "x"`, "line 1, column 20: unknown claim visitor.claims.org.nope"},
		{`visitor.claims.org.billing.nope`, "line 1, column 28: unknown claim visitor.claims.org.billing.nope"},
		{`visitor.claims.unsigned`, "line 1, column 16: visitor.claims.unsigned is an object of claims; read one of them: visitor.claims.unsigned.<name>"},
		{`visitor.claims.org == nil`, "line 1, column 16: visitor.claims.org is an object of claims; read one of them: visitor.claims.org.<name>"},
		{`visitor.claims.plan.name == "x"`, "line 1, column 21: visitor.claims.plan is a string claim; it has no members"},
		{`visitor.claims.roles[0].x == "admin"`, "line 1, column 25: visitor.claims.roles[] is a string claim; it has no members"},
		{`visitor.claims[visitor.claims.plan]`, `line 1, column 15: a claim must be named: visitor.claims.<name> or visitor.claims["<name>"]`},
		{`visitor.claims`, "line 1, column 9: visitor.claims is not a value; read a claim: visitor.claims.<name>"},
		{`visitor.name == "x"`, "line 1, column 9: visitor has only claims: visitor.claims.<name>"},
		{`visitor`, "line 1, column 1: visitor alone is not a value; read a claim: visitor.claims.<name>"},
		{`plan == "pro"`, `line 1, column 1: unknown name "plan"; a condition reads claims: visitor.claims.<name>`},
		{`$env.visitor.claims.internal`, `line 1, column 1: unknown name "$env"; a condition reads claims: visitor.claims.<name>`},
		{`claims.internal`, `line 1, column 1: unknown name "claims"; a condition reads claims: visitor.claims.<name>`},
		// types
		{`visitor.claims.plan > 3`, "line 1, column 21: invalid operation: > (mismatched types string and int)"},
		{`visitor.claims.plan`, "line 1, column 1: expected bool, but got string"},
		{`visitor.claims.seats`, "line 1, column 1: expected bool, but got float64"},
		{`visitor.claims.internal && visitor.claims.plan`, "line 1, column 25: invalid operation: && (mismatched types bool and string)"},
		// cost
		{`any(visitor.claims.roles, # == "a")`, "line 1, column 1: function any is not allowed in a condition (allowed: len, lower, upper, trim, abs, ceil, floor, round)"},
		{`filter(visitor.claims.roles, true) == []`, "line 1, column 1: function filter is not allowed in a condition (allowed: len, lower, upper, trim, abs, ceil, floor, round)"},
		{`repeat("a", 1000000) == ""`, "line 1, column 1: function repeat is not allowed in a condition (allowed: len, lower, upper, trim, abs, ceil, floor, round)"},
		{`visitor.claims.plan | split(",") == []`, "line 1, column 23: function split is not allowed in a condition (allowed: len, lower, upper, trim, abs, ceil, floor, round)"},
		{`foo()`, "line 1, column 1: function foo is not allowed in a condition (allowed: len, lower, upper, trim, abs, ceil, floor, round)"},
		{`visitor.claims.plan.upper() == "PRO"`, "line 1, column 21: function calls is not allowed in a condition (allowed: len, lower, upper, trim, abs, ceil, floor, round)"},
		{`len(1..1000000) > 0`, "line 1, column 6: operator .. is not allowed in a condition"},
		{`let x = 1; x == 1`, "line 1, column 5: variables (let) are not allowed in a condition"},
		{`true; false`, "line 1, column 1: sequences (;) are not allowed in a condition"},
		{`{"a": 1}.a == 1`, "line 1, column 1: map literals are not allowed in a condition"},
		{`visitor.claims.roles[0:1] == []`, "line 1, column 21: slices are not allowed in a condition"},
		{`visitor.claims.email matches visitor.claims.plan`, "line 1, column 45: the pattern of matches must be a string literal"},
		{`visitor.claims.email matches "(("`, "line 1, column 22: error parsing regexp: missing closing ): `((`"},
		{strings.Repeat("!", MaxConditionNodes) + "true", "line 1, column 204: has more than 200 terms"},
		{strings.Repeat("visitor.claims.internal||", 41) + "true", "is longer than 1000 bytes"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			cond, err := Compile(c.src, s)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, %v; want an *Error", cond, err)
			}
			if e.Field != "condition" || e.Message != c.message {
				t.Fatalf("got %q: %q\nwant %q", e.Field, e.Message, c.message)
			}
		})
	}
}

func TestCompileBounds(t *testing.T) {
	s := mustSchema(t, fullSchema)
	// At the length bound a condition compiles.
	src := "visitor.claims.internal"
	src += strings.Repeat(" ", MaxConditionLength-len(src))
	if len(src) != MaxConditionLength {
		t.Fatal(len(src))
	}
	if _, err := Compile(src, s); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(src+" ", s); err == nil {
		t.Fatal("a condition one byte over the bound compiled")
	}
	// At the node bound too.
	src = strings.Repeat("!", MaxConditionNodes-1) + "true"
	if _, err := Compile(src, s); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile("!"+src, s); err == nil {
		t.Fatal("a condition one node over the bound compiled")
	}
	// Parentheses make no nodes: as deep as the length bound allows, they
	// compile and run.
	deep := strings.Repeat("(", 498) + "true" + strings.Repeat(")", 498)
	c, err := Compile(deep, s)
	if err != nil || !c.Eval(nil) {
		t.Fatal(err)
	}
}

func TestCompileWithoutSchema(t *testing.T) {
	if _, err := Compile(`true`, nil); err != nil {
		t.Fatal(err)
	}
	_, err := Compile(`visitor.claims.unsigned.isBeta`, nil)
	if err == nil || err.Error() != "condition: line 1, column 16: unknown claim visitor.claims.unsigned" {
		t.Fatal(err)
	}
	_, err = Compile(`visitor.claims.isBeta`, EmptySchema())
	if err == nil || err.Error() != "condition: line 1, column 16: unknown claim visitor.claims.isBeta" {
		t.Fatal(err)
	}
}

// TestConditionsFollowTheSchema: the same condition compiles against a
// schema with its claims and not against one without; RemovedClaims and
// Claims meet, which is how a schema update finds the conditions it breaks.
func TestConditionsFollowTheSchema(t *testing.T) {
	old := mustSchema(t, fullSchema)
	next := mustSchema(t, doc(`"plan":{"type":"string","description":"Plan"}`))
	cond, err := Compile(`visitor.claims.plan == "pro" || visitor.claims.unsigned.isBeta`, old)
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]bool{}
	for _, r := range RemovedClaims(old, next) {
		removed[r] = true
	}
	var broken []string
	for _, c := range cond.Claims() {
		if removed[c] {
			broken = append(broken, c)
		}
	}
	if !reflect.DeepEqual(broken, []string{"unsigned.isBeta"}) {
		t.Fatalf("broken %v", broken)
	}
	if _, err := Compile(cond.Source(), next); err == nil {
		t.Fatal("compiles against a schema without its claim")
	}
}

func TestEval(t *testing.T) {
	s := mustSchema(t, fullSchema)
	type claims = map[string]any
	pro := claims{"plan": "pro", "internal": false}
	cases := []struct {
		src    string
		claims claims
		want   bool
	}{
		// GitBook's examples
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": claims{"isBeta": true}}, true},
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": claims{"isBeta": false}}, false},
		{`visitor.claims.unsigned.isBeta`, claims{"isBeta": true}, false},
		{`visitor.claims.plan == "pro" && !visitor.claims.internal`, pro, true},
		{`visitor.claims.plan == "pro" && !visitor.claims.internal`, claims{"plan": "pro", "internal": true}, false},
		{`visitor.claims.plan == "pro" && !visitor.claims.internal`, claims{"plan": "pro"}, true},
		// missing claims are false, "", 0, []
		{`visitor.claims.unsigned.isBeta`, nil, false},
		{`visitor.claims.unsigned.isBeta`, claims{}, false},
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": nil}, false},
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": "yes"}, false},
		{`!visitor.claims.unsigned.isBeta`, nil, true},
		{`visitor.claims.plan == "pro"`, nil, false},
		{`visitor.claims.plan == ""`, nil, true},
		{`visitor.claims.seats == 0`, nil, true},
		{`visitor.claims.seats > 0`, nil, false},
		{`"admin" in visitor.claims.roles`, nil, false},
		{`len(visitor.claims.roles) == 0`, nil, true},
		{`visitor.claims.org.billing.paid`, nil, false},
		{`visitor.claims.org.billing.paid`, claims{"org": claims{"billing": claims{"paid": true}}}, true},
		{`visitor.claims.org.name == "Acme" && visitor.claims.org.billing.paid`, claims{"org": claims{"name": "Acme"}}, false},
		// each type
		{`visitor.claims.internal`, claims{"internal": true}, true},
		{`visitor.claims.email endsWith "@example.com"`, claims{"email": "a@example.com"}, true},
		{`visitor.claims.email matches "^[a-z]+@example\\.com$"`, claims{"email": "a@example.com"}, true},
		{`visitor.claims.email matches "^[a-z]+@example\\.com$"`, claims{"email": "A@example.com"}, false},
		{`visitor.claims.plan in ["pro", "team"]`, claims{"plan": "team"}, true},
		{`visitor.claims.seats >= 10`, claims{"seats": 10}, true},
		{`visitor.claims.seats >= 10`, claims{"seats": 9.5}, false},
		{`visitor.claims.seats >= 10`, claims{"seats": int64(12)}, true},
		{`visitor.claims.seats >= 10`, claims{"seats": uint8(12)}, true},
		{`visitor.claims.seats >= 10`, claims{"seats": json.Number("12")}, true},
		{`"admin" in visitor.claims.roles`, claims{"roles": []any{"reader", "admin"}}, true},
		{`"admin" in visitor.claims.roles`, claims{"roles": []string{"reader", "admin"}}, true},
		{`"admin" not in visitor.claims.roles`, claims{"roles": []string{"reader"}}, true},
		{`visitor.claims.roles[1] == "admin"`, claims{"roles": []string{"reader", "admin"}}, true},
		{`"a" in visitor.claims.tiers`, claims{"tiers": []any{"a"}}, true},
		{`3 in visitor.claims.scores`, claims{"scores": []any{1, 2.0, 3}}, true},
		{`visitor.claims.flags[0]`, claims{"flags": []bool{true}}, true},
		{`upper(visitor.claims.unsigned.lang) == "FR"`, claims{"unsigned": claims{"lang": "fr"}}, true},
		// unsigned claims arrive as text
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": claims{"isBeta": "true"}}, true},
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": map[string]string{"isBeta": "true"}}, true},
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": claims{"isBeta": "false"}}, false},
		{`visitor.claims.unsigned.isBeta`, claims{"unsigned": claims{"isBeta": "1"}}, false},
		{`visitor.claims.seats == 12.5`, claims{"seats": " 12.5"}, true},
		// values of the wrong type are missing
		{`visitor.claims.internal`, claims{"internal": "yes"}, false},
		{`visitor.claims.internal`, claims{"internal": 1}, false},
		{`visitor.claims.plan == ""`, claims{"plan": 3}, true},
		{`visitor.claims.plan == "gold"`, claims{"plan": "gold"}, false},
		{`visitor.claims.plan == ""`, claims{"plan": "gold"}, true},
		{`visitor.claims.seats == 0`, claims{"seats": "many"}, true},
		{`visitor.claims.seats == 0`, claims{"seats": "NaN"}, true},
		{`visitor.claims.seats == 0`, claims{"seats": true}, true},
		{`len(visitor.claims.roles) == 0`, claims{"roles": []any{"a", 1}}, true},
		{`len(visitor.claims.roles) == 0`, claims{"roles": "admin"}, true},
		{`len(visitor.claims.tiers) == 0`, claims{"tiers": []any{"a", "z"}}, true},
		{`visitor.claims.org.billing.paid`, claims{"org": claims{"billing": true}}, false},
		// runtime errors are false
		{`visitor.claims.roles[5] == "a"`, claims{"roles": []string{"a"}}, false},
		{`!(visitor.claims.roles[5] == "a")`, claims{"roles": []string{"a"}}, false},
		{`visitor.claims.roles[-1] == "a"`, claims{"roles": []string{"a"}}, true},
		// constants
		{`true`, nil, true},
		{`false`, nil, false},
	}
	for _, c := range cases {
		cond, err := Compile(c.src, s)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := cond.Eval(c.claims); got != c.want {
			t.Errorf("%s with %v: %v, want %v", c.src, c.claims, got, c.want)
		}
	}
}

func TestEvalNeverPanics(t *testing.T) {
	var nilCond *Condition
	if nilCond.Eval(map[string]any{"a": 1}) {
		t.Fatal("nil condition")
	}
	if (&Condition{}).Eval(nil) {
		t.Fatal("zero condition")
	}
	s := mustSchema(t, fullSchema)
	cond, err := Compile(`visitor.claims.seats / 0 > 1 && visitor.claims.roles[0] == "a"`, s)
	if err != nil {
		t.Fatal(err)
	}
	odd := []map[string]any{
		nil,
		{"seats": map[string]any{}},
		{"roles": []any{nil}},
		{"roles": [2]string{"a", "b"}},
		{"roles": []any{[]any{"a"}}},
		{"unsigned": []any{}},
	}
	for _, claims := range odd {
		cond.Eval(claims)
	}
	if !cond.Eval(map[string]any{"seats": 1, "roles": [2]string{"a", "b"}}) {
		t.Fatal("an array value of a Go array type")
	}
}

// TestEvalConcurrently: a compiled condition is shared by the readers of a
// site; run with -race to see it is safe.
func TestEvalConcurrently(t *testing.T) {
	s := mustSchema(t, fullSchema)
	cond, err := Compile(`visitor.claims.plan == "pro" && "admin" in visitor.claims.roles`, s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				want := (i+j)%2 == 0
				plan := "free"
				if want {
					plan = "pro"
				}
				if got := cond.Eval(map[string]any{"plan": plan, "roles": []string{"admin"}}); got != want {
					t.Errorf("got %v, want %v", got, want)
					return
				}
			}
		}(i)
	}
	wg.Wait()
}

// FuzzCompileEval holds that Compile and Eval never panic, that what compiles
// stays within the bounds, and that Eval is deterministic.
func FuzzCompileEval(f *testing.F) {
	for _, seed := range []string{
		`visitor.claims.unsigned.isBeta`,
		`visitor.claims.plan == "pro" && !visitor.claims.internal`,
		`"admin" in visitor.claims.roles`,
		`visitor.claims.roles[3] == "a"`,
		`visitor.claims.seats / 0 > 1`,
		`visitor.claims.email matches "a+"`,
		`((((true))))`,
	} {
		f.Add(seed, "pro", 3.0, true)
	}
	s, err := ParseSchema([]byte(fullSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src, plan string, seats float64, beta bool) {
		cond, err := Compile(src, s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: not an *Error: %v", src, err)
			}
			return
		}
		if len(src) > MaxConditionLength {
			t.Fatalf("%q compiled over the length bound", src)
		}
		claims := map[string]any{"plan": plan, "seats": seats, "roles": []any{plan}, "unsigned": map[string]any{"isBeta": beta}}
		if cond.Eval(claims) != cond.Eval(claims) {
			t.Fatalf("%q: Eval is not deterministic", src)
		}
		cond.Eval(nil)
	})
}

// BenchmarkEval is the cost a published view pays per condition and visitor.
func BenchmarkEval(b *testing.B) {
	s, err := ParseSchema([]byte(fullSchema))
	if err != nil {
		b.Fatal(err)
	}
	cond, err := Compile(`visitor.claims.plan == "pro" && !visitor.claims.internal || visitor.claims.unsigned.isBeta`, s)
	if err != nil {
		b.Fatal(err)
	}
	claims := map[string]any{"plan": "pro", "unsigned": map[string]any{"isBeta": "true"}}
	b.ReportAllocs()
	for b.Loop() {
		if !cond.Eval(claims) {
			b.Fatal("false")
		}
	}
}

// BenchmarkCompile is the cost of a write that sets a condition (and of
// loading one that is not cached).
func BenchmarkCompile(b *testing.B) {
	s, err := ParseSchema([]byte(fullSchema))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(`visitor.claims.plan == "pro" && !visitor.claims.internal || visitor.claims.unsigned.isBeta`, s); err != nil {
			b.Fatal(err)
		}
	}
}
