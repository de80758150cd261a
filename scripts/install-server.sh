#!/usr/bin/env bash
# Installs the server mongobench's demo and tests run against.
#
# The binary $MONGOBENCH_SERVER_BIN names wins, then a mongod on PATH, and
# nothing is installed (the order mongobench itself finds a server in).
# Otherwise this builds the
# pinned SecantusDB (a MongoDB-wire-protocol server over WiredTiger) from
# crates.io into the mongobench cache, once: a binary already there is
# reused. The last line printed is the path of the server binary.
#
# Environment: MONGOBENCH_SERVER_BIN, MONGOBENCH_CACHE (default
# ~/.cache/mongobench).
set -euo pipefail

readonly version="0.5.3-beta.193"
readonly cache="${MONGOBENCH_CACHE:-$HOME/.cache/mongobench}"
readonly root="$cache/secantus-$version"
readonly bin="$root/bin/secantusd-rs"

# works reports whether the server binary at $1 runs.
works() {
  [[ -x "$1" ]] && { "$1" --version >/dev/null 2>&1 || "$1" --help >/dev/null 2>&1; }
}

# find_cargo prints the cargo to use, looking where rustup installs it too.
find_cargo() {
  if command -v cargo 2>/dev/null; then
    return 0
  fi
  if [[ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]]; then
    echo "${CARGO_HOME:-$HOME/.cargo}/bin/cargo"
    return 0
  fi
  return 1
}

# need_tool exits with advice when the build tool $1 is missing.
need_tool() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "install-server: building SecantusDB needs $1 (e.g. apt-get install $2)" >&2
    exit 1
  fi
}

if [[ -n "${MONGOBENCH_SERVER_BIN:-}" ]]; then
  if [[ ! -x "$MONGOBENCH_SERVER_BIN" ]]; then
    echo "install-server: MONGOBENCH_SERVER_BIN=$MONGOBENCH_SERVER_BIN is not an executable file" >&2
    exit 1
  fi
  echo "install-server: MONGOBENCH_SERVER_BIN is set; using it, nothing to install"
  echo "$MONGOBENCH_SERVER_BIN"
  exit 0
fi

if mongod_path="$(command -v mongod)"; then
  echo "install-server: mongod found on PATH; using it, nothing to install"
  echo "$mongod_path"
  exit 0
fi

if works "$bin"; then
  echo "install-server: reusing SecantusDB $version at $bin"
  echo "$bin"
  exit 0
fi
if [[ -e "$bin" ]]; then
  echo "install-server: $bin is there but does not run; building it again"
fi

if ! cargo="$(find_cargo)"; then
  cat >&2 <<'ADVICE'
install-server: cargo not found; SecantusDB is built from crates.io with Rust.
Install Rust with rustup, then run this script again:
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y
    . "$HOME/.cargo/env"
(or install mongod and put it on PATH instead)
ADVICE
  exit 1
fi
need_tool cc build-essential
need_tool cmake cmake

echo "install-server: building SecantusDB $version into $root"
echo "install-server: the first build takes about 11 minutes on 2 cores"
mkdir -p "$root"
# The crate asks for a newer rustc than most machines have; it builds and
# runs fine with --ignore-rust-version.
"$cargo" install secantus-mdb --version "$version" --locked --ignore-rust-version --root "$root"

if ! works "$bin"; then
  echo "install-server: build finished but $bin does not run" >&2
  exit 1
fi
echo "install-server: installed $("$bin" --version | head -n 1)"
echo "$bin"
