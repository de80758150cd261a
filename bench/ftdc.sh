#!/usr/bin/env bash
# Decoding speed of internal/ftdc: BenchmarkDecodeChunk decodes one metric
# chunk shaped like a real mongod's (3,000 metrics × 300 samples, the
# server's default chunk; six in ten metrics constant, the rest counters),
# REPEAT times (default 3), and prints samples per second and the time a
# week of one-second samples (604,800) takes at that speed. Paste the
# figures into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
out="$(go test -run '^$' -bench DecodeChunk -benchtime 50x -count "$repeat" ./internal/ftdc/)"
echo "$out" | grep -E '^Benchmark'
echo "$out" | awk '/^BenchmarkDecodeChunk/ {
  for (i = 1; i <= NF; i++) if ($(i+1) == "samples/s") s = $i
  printf "| %s | %.0f samples/s | a week (604,800 samples): %.1f s |\n", $3 " ns/chunk", s, 604800 / s
}'
# The same chunk size read into per-second figures (mongobench ftdc and
# results attach-ftdc): decoding, the samples' serverStatus sections and
# systemMetrics, every interval's figures.
out="$(go test -run '^$' -bench FTDCWindow -benchtime 20x -count "$repeat" ./internal/telemetry/)"
echo "$out" | grep -E '^Benchmark'
echo "$out" | awk '/^BenchmarkFTDCWindow/ {
  for (i = 1; i <= NF; i++) if ($(i+1) == "samples/s") s = $i
  printf "| figures | %s | %.0f samples/s | a week: %.1f s |\n", $3 " ns/chunk", s, 604800 / s
}'
# An 8.0 shard member's chunk (the role-split layout, 5,500 metrics × 300
# samples): into per-second figures (BenchmarkFTDCRoleSplit), and every
# value decoded sample by sample (BenchmarkFTDCRoleSplitFull).
out="$(go test -run '^$' -bench FTDCRoleSplit -benchtime 10x -count "$repeat" ./internal/telemetry/)"
echo "$out" | grep -E '^Benchmark'
echo "$out" | awk '/^BenchmarkFTDCRoleSplit/ {
  for (i = 1; i <= NF; i++) if ($(i+1) == "samples/s") s = $i
  printf "| %s | %s | %.0f samples/s | a week: %.1f s |\n", $1, $3 " ns/chunk", s, 604800 / s
}'
