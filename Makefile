# mongobench: the two commands of the README are `make demo` and `make test`.
# Both install what is missing (the embedded server is built once, then
# reused) and need nothing else on the machine but Go and Rust's cargo.

GO       ?= go
BIN      := bin/mongobench
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/mongobench/mongobench/internal/cli.Version=$(VERSION)

.PHONY: demo test setup build unit lint bench clean-demo

# Set up, start the embedded server, run a short benchmark, print the
# summary and write a Markdown report with charts.
demo: setup build
	@scripts/demo.sh

# Set up; gofmt, vet, the lint (.golangci.yml) and the pure packages under
# the race detector; then start a throwaway server, run every test (unit
# and integration) against it, stop it.
test: setup build
	@scripts/test.sh

# Install the embedded server, the pinned golangci-lint, the Prometheus
# node exporter the host-metrics tests start, the Prometheus the live
# metrics test starts, the headless Chromium the HTML report tests
# drive and PyMongo, the second driver the record tests send through the
# proxy (each once, into the mongobench cache or from Debian's packages)
# and the Go modules.
setup:
	@scripts/install-server.sh >/dev/null
	@scripts/install-lint.sh >/dev/null
	@scripts/install-node-exporter.sh >/dev/null
	@scripts/install-prometheus.sh >/dev/null
	@scripts/install-chromium.sh >/dev/null
	@scripts/install-pymongo.sh >/dev/null
	@$(GO) mod download

build:
	@mkdir -p bin
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/mongobench

# The tests that need no server: every package with -short (which skips
# the tests that start or use a server), then the pure packages under the
# race detector. Passes on a machine without a server binary.
unit:
	@scripts/unit.sh

# The lint alone: import boundaries, environment and terminal only in cli,
# staticcheck, errcheck, goimports (.golangci.yml).
lint:
	@"$$(scripts/install-lint.sh | tail -n 1)" run ./...

# Client-cost and engine benchmarks; figures go to bench/RESULTS.md.
bench: setup build
	@bench/client-cpu.sh
