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

.PHONY: deps build run test test-unit test-samples bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness

# The main job on a bundled sample: the JSON event stream, stills in $(OUT)/.
run: build
	@mkdir -p $(OUT)
	$(BIN) replay $(SAMPLE) --json --images $(OUT)

# Every test: unit and integration tests, then the sample library replayed
# against its expectations.
test: deps
	$(SWIFT) build -c $(CONFIG) --product hkid-liveness
	HKID_LIVENESS_BIN=$(CURDIR)/$(BIN) $(SWIFT) test
	$(MAKE) --no-print-directory test-samples

test-samples:
	@if ls samples/*.expect.json >/dev/null 2>&1; then \
	  $(BIN) replay samples/*.mp4 --expect; \
	else echo "test-samples: no expectations in samples/ yet"; fi

clean:
	rm -rf .build $(OUT)
