# ilmctl — run `make help` for the targets.
# Every Go command here runs go1.27.3, which the go command fetches from the
# Go module proxy on first use: go1.26.8's standard library has vulnerabilities
# ilmctl calls (docs/dependencies.md#vulnerabilities). GOTOOLCHAIN=local
# make ... builds with the Go on PATH instead.
export GOTOOLCHAIN ?= go1.27.3
GO      ?= go
BIN     := bin/ilmctl
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DEMO    ?= ./demo-data
DEMO_NOW ?= 2026-11-30T00:00:00Z
# The S3 gateway scripts/seaweedfs.sh starts (WEED_S3_PORT as it reads it);
# the demo's reconcile step uses it as a tier when it answers.
DEMO_S3 ?= 127.0.0.1:$(or $(WEED_S3_PORT),8333)
DEMO_RECONCILE := --bucket records --object 2025/q3-report.pdf \
	--version-id 9d2f61c0-5b1e-4c8a-9f3e-1a7b2c4d6e80 --filer $(DEMO) --tiers $(DEMO)/tiers.json

.DEFAULT_GOAL := help
.PHONY: help build install image test soak alerts test-integration test-integration-seaweedfs test-integration-minio demo bench lint lint-md vulncheck cyclo fuzz clean golangci-lint-install

# promtool comes with Debian's prometheus package (.ci/run installs it).
PROMTOOL ?= promtool

# The servers scripts/seaweedfs.sh and scripts/minio.sh start on loopback.
# Their ports follow the scripts' own variables, so another set (e.g.
# WEED_S3_PORT=8633 MINIO_PORT=9700) moves the servers and the tests
# together.
WEED_MASTER_PORT ?= 9333
WEED_FILER_PORT  ?= 8888
WEED_S3_PORT     ?= 8333
MINIO_PORT       ?= 9000
export WEED_MASTER_PORT WEED_FILER_PORT WEED_S3_PORT MINIO_PORT
IT_KEYS := ILMCTL_IT_ACCESS_KEY=ilmctl ILMCTL_IT_SECRET_KEY=ilmctl-secret
IT_ENV := ILMCTL_IT_SERVER=seaweedfs ILMCTL_IT_FILER=127.0.0.1:$(WEED_FILER_PORT) ILMCTL_IT_S3=127.0.0.1:$(WEED_S3_PORT) \
	ILMCTL_IT_S3_GRPC=127.0.0.1:$$(($(WEED_S3_PORT) + 10000)) ILMCTL_IT_MASTER=127.0.0.1:$(WEED_MASTER_PORT) $(IT_KEYS) \
	ILMCTL_IT_WEED=$$(scripts/seaweedfs.sh install 2>/dev/null)
MINIO_IT_ENV := ILMCTL_IT_SERVER=minio ILMCTL_IT_S3=127.0.0.1:$(MINIO_PORT) $(IT_KEYS)
# MinIO serves S3 only: the packages whose integration tests speak s3://
# (tests that need the SeaweedFS filer skip there, saying why), recovery's
# and decom's on s3:// metadata pools included.
MINIO_IT_PKGS := ./client/s3/... ./client/metastore/... ./cmd/ilmctl/... ./commands/recovery/... ./commands/decom/...

help: ## list the targets
	@awk 'BEGIN{FS=":.*## "} /^[a-z-]+:.*## /{printf "  %-27s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/ilmctl
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/ilmctl

# go install puts the binary in $GOBIN, else $GOPATH/bin (~/go/bin).
install: ## install ilmctl into GOBIN (go install)
	$(GO) install -ldflags "-X main.version=$(VERSION)" ./cmd/ilmctl

# The image deploy/kubernetes runs; the Dockerfile builds a static binary
# on distroless. Needs docker; CI does not build it.
IMAGE ?= ilmctl:$(VERSION)
image: ## container image ilmctl:VERSION (needs docker)
	@command -v docker >/dev/null || { echo "make image: needs docker (https://docs.docker.com/engine/install/)" >&2; exit 1; }
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

test: ## vet and run every test with the race detector
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# SOAK_SEEDS: the seeds of the replay-versus-walk differential
# (TestReplayDeletesWhatAWalkDeletes reads ILMCTL_SOAK_SEEDS; go test runs 50).
SOAK_SEEDS ?= 1-1000
soak: ## replay vs walk differential, 1,000 seeds
	ILMCTL_SOAK_SEEDS=$(SOAK_SEEDS) $(GO) test -count=1 -timeout 60m \
		-run '^TestReplayDeletesWhatAWalkDeletes$$' ./core/dailyrun

alerts: ## promtool: check the alert rules and their tests
	@command -v $(PROMTOOL) >/dev/null || { echo "make alerts: no $(PROMTOOL); install it with apt-get install --no-install-recommends prometheus, or set PROMTOOL=" >&2; exit 1; }
	$(PROMTOOL) check rules deploy/prometheus/ilmctl-rules.yml
	$(PROMTOOL) test rules deploy/prometheus/ilmctl-rules_test.yml

# -p 1: the packages share one server, and a pass's rule-set hash covers
# every bucket on it, so one package's new buckets must not land between
# another package's passes.
test-integration: ## integration tests on a real SeaweedFS, then MinIO
	$(MAKE) --no-print-directory test-integration-seaweedfs
	$(MAKE) --no-print-directory test-integration-minio

test-integration-seaweedfs: ## build, start SeaweedFS on loopback, run them all
	scripts/seaweedfs.sh install >/dev/null
	scripts/seaweedfs.sh reset
	scripts/seaweedfs.sh start
	$(IT_ENV) $(GO) test -tags integration -race -count=1 -p 1 -timeout 30m ./...; \
		rc=$$?; scripts/seaweedfs.sh stop; exit $$rc

test-integration-minio: ## start MinIO on loopback, run the s3:// tests
	scripts/minio.sh install >/dev/null
	scripts/minio.sh reset
	scripts/minio.sh start
	$(MINIO_IT_ENV) $(GO) test -tags integration -race -count=1 -p 1 -timeout 20m $(MINIO_IT_PKGS); \
		rc=$$?; scripts/minio.sh stop; exit $$rc

demo: build ## demo filer: explain, run passes, reconcile
	@rm -rf $(DEMO)
	@echo "== load testdata/demo/fixture.json into an embedded filer at $(DEMO)"
	$(BIN) filer load testdata/demo/fixture.json --filer $(DEMO)
	@echo; echo "== what the filer holds before lifecycle runs"
	$(BIN) filer ls --filer $(DEMO)
	@echo; echo "== preview: what a pass at $(DEMO_NOW) would do (nothing is deleted)"
	$(BIN) run --dry-run --now $(DEMO_NOW) --filer $(DEMO)
	@echo; echo "== why is version c1 of media/legal/contract.pdf still there?"
	@echo '$(BIN) explain --bucket media --key legal/contract.pdf --version-id c1 \'
	@echo '    --now $(DEMO_NOW) --filer $(DEMO)'
	@$(BIN) explain --bucket media --key legal/contract.pdf --version-id c1 --now $(DEMO_NOW) --filer $(DEMO)
	@echo; echo "== the pass itself (cold start: recovery walk, then replay)"
	@echo '$(BIN) run -runtime 60m --now $(DEMO_NOW) --filer $(DEMO) \'
	@echo '    --metrics-textfile $(DEMO)/metrics.prom'
	@$(BIN) run -runtime 60m --now $(DEMO_NOW) --filer $(DEMO) --metrics-textfile $(DEMO)/metrics.prom
	@echo; echo "== a few of its Prometheus metrics ($(DEMO)/metrics.prom has them all)"
	@grep -E '^ilmctl_daily_run_(status\{|errors |ambiguous_keys )' $(DEMO)/metrics.prom
	@echo; echo "== what remains"
	$(BIN) filer ls --filer $(DEMO)
	@echo; echo "== a day later: steady state replays the meta-log from the saved cursors"
	$(BIN) run -runtime 60m --now 2026-12-01T00:00:00Z --filer $(DEMO)
	@echo; echo "== reconcile: a version transitioned before its state record, proven on its tier"
	@if ! $(GO) run ./internal/demotier -check -endpoint $(DEMO_S3) 2>/dev/null; then \
		echo "(skipped: no SeaweedFS S3 at $(DEMO_S3) to act as the tier;"; \
		echo " scripts/seaweedfs.sh start starts one, building SeaweedFS first:"; \
		echo " about 9 minutes on 2 cores the first time, then cached in ~/.cache/ilmctl)"; \
	else set -e; export WEED_ACCESS_KEY=$${WEED_ACCESS_KEY:-ilmctl} WEED_SECRET_KEY=$${WEED_SECRET_KEY:-ilmctl-secret}; \
		set -x; \
		$(BIN) filer load testdata/demo/reconcile.json --filer $(DEMO); \
		$(GO) run ./internal/demotier -endpoint $(DEMO_S3) -tiers-out $(DEMO)/tiers.json; \
		$(BIN) reconcile get $(DEMO_RECONCILE); \
		$(BIN) reconcile get $(DEMO_RECONCILE) -o json > $(DEMO)/plan.json; \
		$(BIN) reconcile post $(DEMO_RECONCILE) --plan $(DEMO)/plan.json --confirm; \
		$(BIN) reconcile get $(DEMO_RECONCILE) | head -3; \
	fi

# BENCH_VERSIONS sizes the pass benchmark; BENCH_10M=1 adds 10M versions
# (about 5 GB of fixture and filer on disk, and about 50 minutes on 2 cores).
BENCH_VERSIONS ?= 100000,1000000
ifeq ($(BENCH_10M),1)
BENCH_VERSIONS := $(BENCH_VERSIONS),10000000
endif
# BENCH_CUT_VERSIONS sizes BenchmarkCutColdPass (client/embedded): a cold
# pass cut into 5 or more passes against the uncut one.
BENCH_CUT_VERSIONS ?= 1000000
bench: build ## Go benchmarks, passes at 100k/1M (BENCH_10M=1)
	ILMCTL_BENCH_CUT_VERSIONS=$(BENCH_CUT_VERSIONS) $(GO) test -run='^$$' -bench=. -benchmem -timeout 60m ./...
	$(GO) build -o bin/genfixture ./scripts/genfixture
	$(GO) run ./scripts/benchpass -ilmctl $(BIN) -genfixture bin/genfixture -versions $(BENCH_VERSIONS)

# golangci-lint (.golangci.yml: layering, import aliases, staticcheck,
# unused, errcheck, govet) and govulncheck, both installed into .bin/ at
# pinned versions through the Go module proxy on first use. A tool that
# type-checks Go must be built by a Go at least as new as the one whose
# standard library it reads, so they live under .bin/<go version>/ and a
# new GOTOOLCHAIN rebuilds them. (Make 4.3's $(shell) does not see exported
# variables, hence GOTOOLCHAIN passed by hand; `=` so that only the targets
# that use it ask the go command.)
TOOLS_GO = $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOVERSION)
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_LINT = .bin/$(TOOLS_GO)/golangci-lint-$(GOLANGCI_LINT_VERSION)
# VULNDB: the golang.org/x/vulndb version, pinned so an unchanged tree
# lints the same (VULNDB=latest for today's data); VULNCHECK_STDLIB=report
# prints the toolchain's own vulnerabilities without failing on them
# (docs/dependencies.md#vulnerabilities).
VULNDB ?= v0.0.0-20261105234957-e22db6528018
VULNCHECK_STDLIB ?= fail
golangci-lint-install:
	@set -e; bin=$(GOLANGCI_LINT); [ -x $$bin ] && exit 0; \
	mkdir -p $$(dirname $$bin) && tmp=$$(mktemp -d .bin/.install-XXXXXX); \
	echo "GOBIN=$$tmp $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)"; \
	GOBIN=$(CURDIR)/$$tmp $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); \
	mv $$tmp/golangci-lint $$bin && rmdir $$tmp

lint: golangci-lint-install ## gofmt, golangci-lint, govulncheck, markdown
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GOLANGCI_LINT) run ./...
	$(MAKE) --no-print-directory vulncheck
	$(MAKE) --no-print-directory lint-md

# scripts/mdcheck: code fences closed, relative links and #anchors resolve.
lint-md: ## markdown: fences closed, links resolve
	$(GO) run ./scripts/mdcheck $$(git ls-files '*.md')

vulncheck: ## govulncheck on a local vulnerability database
	$(GO) run ./scripts/vulncheck -bin .bin -vulndb $(VULNDB) -stdlib $(VULNCHECK_STDLIB)

cyclo: golangci-lint-install ## report functions of cyclomatic complexity > 30
	$(GOLANGCI_LINT) run --enable-only gocyclo --issues-exit-code 0 ./...

FUZZTIME ?= 20s
fuzz: ## every fuzz target for 20s each (FUZZTIME=)
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean: ## remove build output and the demo filer
	rm -rf bin $(DEMO) ilmctl-data
