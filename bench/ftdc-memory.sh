#!/usr/bin/env bash
# Memory of `mongobench ftdc` over two months of one-second samples
# (5,184,000, written by bench/ftdcgen: a mongod's sample, chunks of 300):
# wall time and maximum RSS (/usr/bin/time -v) of the whole window and of
# --metric inserts. N overrides the sample count; BIN the binary
# (default: bin/mongobench, built by make build). Paste the figures into
# bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-5184000}"
bin="${BIN:-bin/mongobench}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
go run ./bench/ftdcgen -out "$dir/metrics.2026-01-01T00-00-00Z-00000" -n "$n"
ls -l "$dir"
for args in "" "--metric inserts"; do
  # shellcheck disable=SC2086 # $args is zero or two words
  /usr/bin/time -v "$bin" ftdc "$dir" $args >"$dir/out.txt" 2>"$dir/time.txt"
  printf '| ftdc %s | %s | %s kB |\n' "${args:-(every figure)}" \
    "$(awk -F': ' '/Elapsed/ {print $2}' "$dir/time.txt")" \
    "$(awk -F': ' '/Maximum resident/ {print $2}' "$dir/time.txt")"
  sed -n 5,6p "$dir/out.txt"
done
