#!/usr/bin/env bash
# Compares a workload file with the built-in it re-expresses, in one
# invocation: workloads/kv.yaml (point reads by _id and $inc updates,
# half and half, over 10,000 seeded documents of 1 KB) against the
# built-in kv with the same mix and documents (-p readPercent=50), both
# over the lean wire client, against one throwaway embedded server:
# closed loop (THREADS workers), then open loop at RATE/s. Client CPU is
# getrusage over the measured phase divided by the completed operations.
# Each cell runs REPEAT times (default 3); the two alternate and swap
# which goes first on every repetition. First, the cost of generating a
# 1 KB document with ten generated fields (a Go benchmark). Prints
# Markdown tables, then the medians and the ratio file / built-in (the
# bar: at most 1.25); paste the figures into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
duration="${DURATION:-20s}"
threads="${THREADS:-8}"
rate="${RATE:-2000}"

echo "## generating a 1 KB document with ten generated fields"
go test -run '^$' -bench 'Document1KB10Fields' -benchtime 200000x ./internal/workloadfile/ | grep -E '^Benchmark'

. bench/lib.sh
rows="$dir/rows.tsv"
: >"$rows"

# measure LOOP WHICH RUN FLAGS... runs kv (built-in) or kv.yaml (file)
# once and prints its table row; it appends loop, which and CPU per op
# to $rows.
measure() {
  local loop="$1" which="$2" n="$3"
  shift 3
  local workload=(--workload kv -p records=10000 -p docSize=1KB -p readPercent=50)
  [ "$which" = file ] && workload=(--workload workloads/kv.yaml)
  bin/mongobench run --uri "$uri" "${workload[@]}" --duration "$duration" --warmup 5s -p client=wire \
    --results-file "$dir/results.jsonl" --no-report --json "$@" 2>/dev/null |
    python3 -c '
import json, sys
loop, which, n, rows = sys.argv[1:]
d = json.load(sys.stdin)
ops = {o["name"]: o for o in d["ops"]}
cpu = d["client"]["cpuPerOpUs"]
cells = [which, d["test_config"]["client"], n, "%.0f" % d["schedule"]["achievedRate"], "%.1f" % cpu, "%.1f" % d["client"]["cpuPct"]]
for name in ("read", "update"):
    cells += ["%.3f" % ops[name]["latency"]["p50Ms"], "%.3f" % ops[name]["latency"]["p99Ms"]]
print("| " + " | ".join(cells) + " |")
with open(rows, "a") as f:
    f.write("\t".join([loop, which, str(cpu)]) + "\n")' "$loop" "$which" "$n" "$rows"
}

# side_by_side LOOP FLAGS... runs both REPEAT times, alternating.
side_by_side() {
  local loop="$1"
  shift
  for i in $(seq 1 "$repeat"); do
    if [ $((i % 2)) -eq 1 ]; then order="builtin file"; else order="file builtin"; fi
    for which in $order; do measure "$loop" "$which" "$i" "$@"; done
  done
}

header="| workload | client | run | ops/s | client CPU µs/op | client CPU % of cores | read p50 ms | read p99 ms | update p50 ms | update p99 ms |"
rule="|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
echo
echo "## closed loop ($threads threads, $duration, 5s warm-up, 10,000 × 1 KB, reads and updates half and half)"
echo
echo "$header"
echo "$rule"
side_by_side closed --threads "$threads"

echo
echo "## open loop at $rate/s (64 in flight, $duration, 5s warm-up)"
echo
echo "$header"
echo "$rule"
side_by_side open --rate "$rate/s"

echo
echo "## client CPU per operation, median of $repeat runs"
echo
python3 - "$rows" <<'PY'
import statistics, sys
cells = {}
for line in open(sys.argv[1]):
    loop, which, cpu = line.split("\t")
    cells.setdefault(loop, {}).setdefault(which, []).append(float(cpu))
print("| loop | built-in kv µs/op | kv.yaml µs/op | kv.yaml / kv (bar: ≤ 1.25) |")
print("|---|---:|---:|---:|")
for loop, by in cells.items():
    b, f = statistics.median(by["builtin"]), statistics.median(by["file"])
    print("| %s | %.1f | %.1f | %.2f |" % (loop, b, f, f / b))
PY
