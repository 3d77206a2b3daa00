# Folio: the two commands a newcomer needs are `make run` and `make test`.
GO ?= go

.PHONY: run build test generate bench lint schema-snapshot

## run: serve on the embedded SQLite database under ./data (prints a token and a curl line on first start)
run:
	$(GO) run . serve

## build: the folio binary
build:
	CGO_ENABLED=0 $(GO) build -o folio .

## test: the whole suite on SQLite, and on PostgreSQL too when TEST_DATABASE_URL (default: the local server)
## answers (its database is created when missing, and then required); the last line names the databases
## and every check that was skipped, with why (internal/skiplog)
TESTFLAGS ?= -shuffle=on
test:
	@dbs=$$($(GO) run ./internal/testkit/testdb) || exit 1; \
	case "$$dbs" in "SQLite and PostgreSQL"*) export FOLIO_REQUIRE_POSTGRES=1;; esac; \
	export FOLIO_SKIP_LOG=$$(mktemp); \
	$(GO) test -count=1 $(TESTFLAGS) ./...; status=$$?; \
	if [ $$status -eq 0 ]; then result=passed; else result=FAILED; fi; \
	skipped=$$(sort -u "$$FOLIO_SKIP_LOG" | awk 'NR > 1 { printf "; " } { printf "%s", $$0 }'); rm -f "$$FOLIO_SKIP_LOG"; \
	echo "make test: $$result on $$dbs; skipped: $${skipped:-nothing}"; exit $$status

## generate: regenerate ent, the emoji table and gqlgen code (committed; CI fails when it drifts)
generate:
	$(GO) generate ./ent
	$(GO) generate ./internal/emoji
	$(GO) run github.com/99designs/gqlgen generate

## schema-snapshot: record schema/*.graphql as the released GraphQL schema (schema/compat/snapshot.graphql),
## which TestSchemaCompatible compares the schema with; run it when a release is cut
schema-snapshot:
	$(GO) run ./internal/schemacompat/snapshot

## bench: Go benchmarks on SQLite and, when reachable, PostgreSQL; then Folio side by side with a bare
## database/sql handler and PostGraphile on PostgreSQL (database folio_bench, recreated; ../shared/perf; npm once)
## and its imports against a build of ea6637c on both databases; ends with every ratio of issues 11, 25 and 31
## and its target. A missing tool is skipped with the reason; any other comparison that cannot run fails.
## BENCHFLAGS passes options, e.g. BENCHFLAGS='-bench "" -only import,spaces -rounds 5' or BENCHFLAGS=-compare=false
BENCHFLAGS ?=
bench:
	$(GO) run ./internal/perf/ratios -go $(GO) $(BENCHFLAGS)

## lint: go vet and gofmt
lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v -e '^ent/' -e '/generated/')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
