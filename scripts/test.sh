#!/usr/bin/env bash
# The README's second command (via `make test`): gofmt, vet and the lint;
# the pure packages under the race detector; then a throwaway embedded
# server with a small footprint, every Go test against it, and stop it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Formatting, vet and the lint first: they take seconds and name the file
# (and the lint its rule).
unformatted="$(gofmt -l cmd internal)"
if [[ -n "$unformatted" ]]; then
  echo "gofmt: these files need formatting (gofmt -w):" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...

# The boundaries of .golangci.yml: which packages may talk to MongoDB,
# which are pure, that only cli reads the environment, prints or exits;
# with staticcheck, errcheck and goimports.
lint="$(scripts/install-lint.sh | tail -n 1)"
"$lint" run --allow-serial-runners ./...

# The pure packages need no server: run them under the race detector.
# shellcheck disable=SC2046 # one package pattern a line
go test -race -short -count=1 $(scripts/pure-packages.sh)

dir="$(mktemp -d -t mongobench-test-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$dir"
cleanup() {
  bin/mongobench server stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

# MONGOBENCH_TEST_PORT pins the server's port (default: a free one).
bin/mongobench server start --small --no-sync-on-commit ${MONGOBENCH_TEST_PORT:+--port "$MONGOBENCH_TEST_PORT"}
MONGOBENCH_TEST_URI="$(bin/mongobench server status --print-uri)"
export MONGOBENCH_TEST_URI

# A test that runs the CLI without --uri finds this same server through
# MONGOBENCH_SERVER_DIR; tests that need a server of their own start one.
# One test binary at a time (-p 1): the open-loop accuracy and freeze tests
# measure timing and must not share 2 cores with other packages.
go test -count=1 -p 1 -timeout 45m ./... 2>&1 | tee "$dir/go-test.log"
