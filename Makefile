# The two commands of the README's Quick start are `make run` and `make test`;
# both install what is missing first. Everything else here is optional.

# SwiftPM finds system libraries by pkg-config name only; ours are the
# trimmed files in pkgconfig/ (see docs/architecture.md).
export PKG_CONFIG_PATH := $(CURDIR)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

SWIFT        ?= swift
CONFIG       ?= release
BIN          := .build/$(CONFIG)/hkid-liveness
SAMPLE       ?= samples/genuine-2018.mp4
OUT          ?= out

.PHONY: deps build run test test-unit test-samples eval-dev eval-real downstream-check bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness

# The main job on a bundled sample: the JSON event stream, stills in $(OUT)/.
run: build
	@mkdir -p $(OUT)
	$(BIN) replay $(SAMPLE) --json --images $(OUT)

# Every test: unit and integration tests, then the sample library replayed
# against its expectations, then a package that depends on this one by
# version. Serially: the live and station tests run real daemons and a
# browser against real time, and on 2 cores parallel suites starve each
# other into false failures.
test: deps
	@scripts/install-deps.sh browser eval memcheck
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	HKID_LIVENESS_BIN=$(CURDIR)/$(BIN) SWIFT=$(SWIFT) scripts/swift-test.sh --no-parallel
	$(MAKE) --no-print-directory test-samples
	scripts/memcheck.sh $(BIN)
	scripts/eval-dev.sh $(BIN)
	scripts/eval-real.sh $(BIN)
	$(MAKE) --no-print-directory downstream-check

# The in-process suites only (the session, the vision shim, the media
# pipelines, the live driver): no daemon, browser or CLI binary; a minute or two once built.
test-unit: deps
	SWIFT=$(SWIFT) scripts/swift-test.sh --no-parallel \
	  --filter '^(HKIDLivenessTests|CardVisionTests|HKIDMediaTests|HKIDPipelineTests)\.'

# The independent development set (../shared/eval-dev) scored by
# its own scorer: the table and summary line; exit 1 when a video listed in
# samples/eval-dev-passing.txt no longer passes (scripts/eval-dev.sh).
eval-dev: build
	@scripts/install-deps.sh eval
	scripts/eval-dev.sh $(BIN)

# Real phone photographs of ID-1 cards (../shared/eval-real) scored by the
# same scorer: mean IoU and recall, exit 1 below the floors in
# scripts/eval-real.sh (a floor just under what the detector reaches).
eval-real: build
	@scripts/install-deps.sh eval
	scripts/eval-real.sh $(BIN)

test-samples:
	@if ls samples/*.expect.json >/dev/null 2>&1; then \
	  $(BIN) replay samples/*.mp4 --expect; \
	else echo "test-samples: no expectations in samples/ yet"; fi

# A clone of the committed HEAD tagged 1.0.0, and a tiny package depending
# on it with `from: "1.0.0"` that runs a LivenessSession on a sample
# (scripts/downstream-check.sh; docs/session.md, "Depending on this package").
downstream-check:
	scripts/downstream-check.sh

clean:
	rm -rf .build $(OUT)

# The HTML report (--report) of the whole sample library, and a screenshot of
# it in headless Chromium, to look at what people will see: $(OUT)/report.html,
# $(OUT)/report.png. A mismatching sample still gets its report.
.PHONY: report-screenshot
report-screenshot:
	@scripts/install-deps.sh browser
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	@mkdir -p $(OUT)
	$(BIN) replay samples/*.mp4 --expect --report $(OUT)/report.html \
	  || echo "report-screenshot: not every sample matched its expectation; see the report"
	@test -s $(OUT)/report.html
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,3000 \
	  --screenshot=$(abspath $(OUT))/report.png file://$(abspath $(OUT))/report.html 2>/dev/null
	@test -s $(OUT)/report.png && echo "report-screenshot: $(OUT)/report.png"

# Benchmarks (docs/benchmarks.md): the vision shim on synthetic
# sequences, replay throughput against decoding alone, live latency, start-up
# and peak memory. Medians of interleaved runs; nothing here asserts a timing.
BENCH := .build/$(CONFIG)/hkid-bench
.PHONY: bench-build soak leakcheck memcheck
bench-build:
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	$(SWIFT) build -c $(CONFIG) --product hkid-bench

bench: bench-build
	$(BENCH) vision
	$(BENCH) scenes
	$(BENCH) replay --binary $(BIN)
	$(BENCH) latency
	$(BENCH) startup --binary $(BIN)
	$(BENCH) memory --binary $(BIN)

# The check service (docs/scale.md): checks a minute with 1 and 2 workers,
# the per-check overhead against a plain replay, claims a second, against a
# throwaway PostgreSQL (scripts/bench-hub.sh). Release builds: the benchmark
# refuses debug ones. BENCH_HUB_ARGS e.g. "--checks 20 samples/genuine-2003.mp4".
BENCH_HUB_ARGS ?=
.PHONY: bench-hub
bench-hub: bench-build
	$(SWIFT) build -c $(CONFIG) --product hkid-worker
	CONFIG=$(CONFIG) scripts/bench-hub.sh $(BENCH_HUB_ARGS)

# The sample library replayed in a loop in one process for SOAK_MINUTES
# (default 10); RSS after the first pass against the end (bar: < 2 MB growth).
SOAK_MINUTES ?= 10
soak: bench-build
	$(BENCH) soak --minutes $(SOAK_MINUTES)

# One replay under valgrind memcheck (no definitely-lost blocks from our
# code; scripts/valgrind.supp only holds GStreamer/GLib one-time allocations)
# and one with GStreamer's leaks tracer (every GstObject and GstMiniObject,
# samples included, released by the end).
LEAK_SAMPLE ?= samples/genuine-2018.mp4
leakcheck:
	@scripts/install-deps.sh memcheck
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	scripts/leakcheck.sh $(BIN) $(LEAK_SAMPLE)

# Replays under valgrind memcheck that fail on any invalid read or write
# (scripts/memcheck.sh: a person scene whose search once read beyond its
# image, and a sample); part of `make test`.
memcheck:
	@scripts/install-deps.sh memcheck
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	scripts/memcheck.sh $(BIN)

# Damaged recordings (bits flipped, blocks zeroed or deleted, tails cut)
# replayed by the real binary; fails if any exits other than 0/2, writes more
# than one stderr line or stalls (docs/benchmarks.md, "Bad input beyond the matrix").
FUZZ_COUNT ?= 200
.PHONY: fuzz-replay
fuzz-replay:
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	Fuzz/replay-mutants.py --count $(FUZZ_COUNT) --binary $(BIN) \
	  samples/genuine-2003.mp4 samples/no-card.mp4 samples/slow-occluded-2018.mp4

# The station daemon running sessions back to back for SOAK_MINUTES over
# HTTP; the median RSS of the first five sessions after warm-up against the
# last five, and by quarter of the run (bar: < 2 MB growth).
station-soak:
	$(SWIFT) build -c $(CONFIG) --product hkid-station
	scripts/station-soak.sh $(SOAK_MINUTES) .build/$(CONFIG)/hkid-station
