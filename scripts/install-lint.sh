#!/usr/bin/env bash
# Installs golangci-lint, pinned, for scripts/test.sh.
#
# It is built with `go install` from the Go module proxy into the mongobench
# cache, once: a binary already there at the pinned version is reused. It is
# a tool of the build, not a dependency of the module, so go.mod does not
# list it. The last line printed is the path of the binary.
#
# Environment: MONGOBENCH_CACHE (default ~/.cache/mongobench).
set -euo pipefail

readonly version="v2.15.0"
readonly cache="${MONGOBENCH_CACHE:-$HOME/.cache/mongobench}"
readonly root="$cache/tools/golangci-lint-$version"
readonly bin="$root/golangci-lint"

# pinned reports whether the binary at $1 runs and is the pinned version.
pinned() {
  [[ -x "$1" ]] && "$1" version 2>/dev/null | grep -q "version ${version#v} "
}

if pinned "$bin"; then
  echo "install-lint: reusing golangci-lint $version at $bin"
  echo "$bin"
  exit 0
fi

echo "install-lint: building golangci-lint $version into $root"
echo "install-lint: the first build takes about 4 minutes on 2 cores"
mkdir -p "$root"
GOBIN="$root" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"

if ! pinned "$bin"; then
  echo "install-lint: build finished but $bin is not golangci-lint $version" >&2
  exit 1
fi
echo "$bin"
