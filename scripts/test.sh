#!/usr/bin/env bash
# The README's second command (via `make test`): start a throwaway embedded
# server with a small footprint, run every Go test against it, stop it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Formatting and vet first: they take seconds and name the file.
unformatted="$(gofmt -l cmd internal)"
if [[ -n "$unformatted" ]]; then
  echo "gofmt: these files need formatting (gofmt -w):" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...

dir="$(mktemp -d -t mongobench-test-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$dir"
cleanup() {
  bin/mongobench server stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

bin/mongobench server start --small --no-sync-on-commit
MONGOBENCH_TEST_URI="$(bin/mongobench server status --uri)"
export MONGOBENCH_TEST_URI

# A test that runs the CLI without --uri finds this same server through
# MONGOBENCH_SERVER_DIR; tests that need a server of their own start one.
# One test binary at a time (-p 1): the open-loop accuracy and freeze tests
# measure timing and must not share 2 cores with other packages.
go test -count=1 -p 1 -timeout 30m ./... 2>&1 | tee "$dir/go-test.log"
