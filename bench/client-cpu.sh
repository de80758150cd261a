#!/usr/bin/env bash
# Measures mongobench's own CPU per operation:
#   1. the engine alone (scheduling, timing, HDR recording, interval
#      rotation) around a no-op task, via Go benchmarks;
#   2. closed-loop point reads (kv, readPercent=100) against a throwaway
#      embedded server, client CPU from getrusage over the measured phase;
#   3. the same reads open loop at RATE/s, with the client's send lag.
# Each of 2 and 3 runs REPEAT times (default 3). Prints Markdown tables;
# paste the figures into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
duration="${DURATION:-20s}"
threads="${THREADS:-8}"
rate="${RATE:-2000}"

echo "## engine alone (no-op task)"
go test -run '^$' -bench 'Noop' -benchtime 1000000x ./internal/load/ | grep -E '^Benchmark'

dir="$(mktemp -d -t mongobench-bench-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$dir"
trap 'bin/mongobench server stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
bin/mongobench server start --small --no-sync-on-commit >/dev/null
uri="$(bin/mongobench server status --uri)"

# measure RUN_NUMBER FLAGS... runs one point-read benchmark and prints its
# table row: ops/s, client CPU, send lag (open loop only), read latencies.
measure() {
  local n="$1"
  shift
  bin/mongobench run --uri "$uri" --duration "$duration" --warmup 5s -p records=10000 -p readPercent=100 \
    --results-file "$dir/results.jsonl" --no-report --json "$@" 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [o for o in d["ops"] if o["name"] == "read"][0]
lag = d["schedule"].get("sendLag")
cells = [sys.argv[1], "%.0f" % d["schedule"]["achievedRate"], "%.1f" % d["client"]["cpuPerOpUs"], "%.1f" % d["client"]["cpuPct"]]
if lag:
    cells += ["%.3f" % lag["p50Ms"], "%.3f" % lag["p99Ms"]]
cells += ["%.3f" % r["latency"]["p50Ms"], "%.3f" % r["latency"]["p99Ms"], "%.3f" % r["serviceTime"]["p99Ms"]]
print("| " + " | ".join(cells) + " |")' "$n"
}

echo
echo "## closed-loop point reads against the embedded server ($threads threads, $duration, 5s warm-up)"
echo
echo "| run | ops/s | client CPU µs/op | client CPU % of cores | read p50 ms | read p99 ms | read service p99 ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for i in $(seq 1 "$repeat"); do measure "$i" --threads "$threads"; done

echo
echo "## open loop at $rate/s against the embedded server (64 in flight, $duration, 5s warm-up)"
echo
echo "| run | achieved ops/s | client CPU µs/op | client CPU % of cores | send lag p50 ms | send lag p99 ms | read latency p50 ms | read latency p99 ms | read service p99 ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for i in $(seq 1 "$repeat"); do measure "$i" --rate "$rate/s"; done
