#!/usr/bin/env bash
# Compares the open-loop pacings side by side in one invocation, against
# one throwaway embedded server: for each workload (kv and ycsb-c), each
# rate, and each pacing (Go timers, "timer"; a timerfd, "timerfd"; and the
# default, "spin"), alternating, it runs REPEAT times and prints one Markdown row
# per run: send lag p50/p99/p99.9, client CPU per operation, and the
# achieved rate (successes) against the target.
#
# Environment: DURATION (measured phase, default 20s), WARMUP (default 3s),
# RATES (default "500 2000 10000 100000"; the last saturates this
# machine), PACINGS (default "timer timerfd spin"; also nanosleep),
# WORKLOADS (default "kv ycsb-c"), REPEAT (default 1), THREADS (in flight,
# default 64), PORT (server port, default: the tool's choice).
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-20s}"
warmup="${WARMUP:-3s}"
rates="${RATES:-500 2000 10000 100000}"
pacings="${PACINGS:-timer timerfd spin}"
workloads="${WORKLOADS:-kv ycsb-c}"
repeat="${REPEAT:-1}"
threads="${THREADS:-64}"

. bench/lib.sh

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u +%FT%TZ)"
echo "runs: $duration measured after $warmup warm-up, $threads in flight, repeat $repeat"
echo
echo "| workload | target ops/s | pacing | send lag p50 µs | p99 µs | p99.9 µs | client CPU µs/op | achieved ops/s | achieved / target | failed/s | precision | load avg |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"
for w in $workloads; do
  case "$w" in
  kv) params=(-p records=10000 -p readPercent=100) ;;
  ycsb-*) params=(-p recordcount=10000) ;;
  *) params=() ;;
  esac
  for rate in $rates; do
    for i in $(seq 1 "$repeat"); do
      for p in $pacings; do
        bin/mongobench run --uri "$uri" --workload "$w" --rate "$rate/s" --threads "$threads" \
          --duration "$duration" --warmup "$warmup" "${params[@]}" --pacing "$p" \
          --results-file "$dir/results.jsonl" --no-report --json 2>/dev/null |
          python3 -c '
import json, sys
d = json.load(sys.stdin)
s, c = d["schedule"], d["client"]
lag = s.get("sendLag") or {}
us = lambda k: "%.0f" % (1000 * lag[k]) if lag.get(k) is not None else "missing"
ok = s.get("successRate", s["achievedRate"])
target = float(sys.argv[3])
p = s.get("precision") or {}
prec = ("%.1f%% of %s p50" % (100 * p["share"], p["op"]) + (" FLAGGED" if p["flagged"] else "")) if p.get("judged") else "not judged"
cpu = c.get("cpuPerOpUs")
load = open("/proc/loadavg").read().split()[0]
print("| " + " | ".join([sys.argv[1], "%g" % target, sys.argv[2], us("p50Ms"), us("p99Ms"), us("p999Ms"),
    "%.1f" % cpu if cpu is not None else "missing", "%.0f" % ok, "%.4f" % (ok / target), "%.1f" % s.get("failedRate", 0), prec, load]) + " |")
' "$w" "$p" "$rate"
      done
    done
  done
done
