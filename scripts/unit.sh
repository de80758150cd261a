#!/usr/bin/env bash
# `make unit`: the tests that need no server. -short skips every test that
# would start or use one, so this passes on a machine without a server
# binary; the pure packages run again under the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."

go test -short -count=1 ./...
# shellcheck disable=SC2046 # one package pattern a line
go test -race -short -count=1 $(scripts/pure-packages.sh)
