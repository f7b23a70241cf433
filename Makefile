# ilmctl — run `make help` for the targets.
GO      ?= go
BIN     := bin/ilmctl
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DEMO    ?= ./demo-data
DEMO_NOW ?= 2026-11-30T00:00:00Z

.DEFAULT_GOAL := help
.PHONY: help build test test-integration demo bench lint fuzz clean

# The SeaweedFS that scripts/seaweedfs.sh starts on loopback.
IT_ENV := ILMCTL_IT_FILER=127.0.0.1:8888 ILMCTL_IT_S3=127.0.0.1:8333 \
	ILMCTL_IT_S3_GRPC=127.0.0.1:18333 ILMCTL_IT_ACCESS_KEY=ilmctl ILMCTL_IT_SECRET_KEY=ilmctl-secret \
	ILMCTL_IT_WEED=$$(scripts/seaweedfs.sh install 2>/dev/null)

help: ## list the targets
	@awk 'BEGIN{FS=":.*## "} /^[a-z-]+:.*## /{printf "  %-17s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/ilmctl
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/ilmctl

test: ## vet and run every test with the race detector
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# -p 1: the packages share one server, and a pass's rule-set hash covers
# every bucket on it, so one package's new buckets must not land between
# another package's passes.
test-integration: ## build and start a real SeaweedFS on loopback, run the integration tests, stop it
	scripts/seaweedfs.sh install >/dev/null
	scripts/seaweedfs.sh reset
	scripts/seaweedfs.sh start
	$(IT_ENV) $(GO) test -tags integration -race -count=1 -p 1 -timeout 30m ./...; \
		rc=$$?; scripts/seaweedfs.sh stop; exit $$rc

demo: build ## load testdata/demo/fixture.json into ./demo-data and run lifecycle passes on it
	@rm -rf $(DEMO)
	@echo "== load testdata/demo/fixture.json into an embedded filer at $(DEMO)"
	$(BIN) filer load testdata/demo/fixture.json --filer $(DEMO)
	@echo; echo "== what the filer holds before lifecycle runs"
	$(BIN) filer ls --filer $(DEMO)
	@echo; echo "== preview: what a pass at $(DEMO_NOW) would do (nothing is deleted)"
	$(BIN) run --dry-run --now $(DEMO_NOW) --filer $(DEMO)
	@echo; echo "== the pass itself (cold start: recovery walk, then replay)"
	$(BIN) run -runtime 60m --now $(DEMO_NOW) --filer $(DEMO) --metrics-textfile $(DEMO)/metrics.prom
	@echo; echo "== its Prometheus metrics, as node_exporter's textfile collector reads them"
	cat $(DEMO)/metrics.prom
	@echo; echo "== what remains"
	$(BIN) filer ls --filer $(DEMO)
	@echo; echo "== a day later: steady state replays the meta-log from the saved cursors"
	$(BIN) run -runtime 60m --now 2026-12-01T00:00:00Z --filer $(DEMO)

# BENCH_VERSIONS sizes the pass benchmark; BENCH_10M=1 adds 10M versions
# (about 2 GB of fixture and filer on disk, and an hour on 2 cores).
BENCH_VERSIONS ?= 100000,1000000
ifeq ($(BENCH_10M),1)
BENCH_VERSIONS := $(BENCH_VERSIONS),10000000
endif
bench: build ## run the Go benchmarks, then passes on generated fixtures at 100k and 1M versions (BENCH_10M=1 adds 10M)
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	$(GO) build -o bin/genfixture ./scripts/genfixture
	$(GO) run ./scripts/benchpass -ilmctl $(BIN) -genfixture bin/genfixture -versions $(BENCH_VERSIONS)

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

FUZZTIME ?= 20s
fuzz: ## run every fuzz target (decoders, lifecycle XML) for 20s each (FUZZTIME=)
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$f"; \
			$(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

clean: ## remove build output and the demo filer
	rm -rf bin $(DEMO) ilmctl-data
