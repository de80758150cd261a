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
# 1 KB document with ten generated fields (a Go benchmark). Then the
# same for the transaction study's ledger: workloads/ledger.yaml against
# the built-in ledger with its defaults (10,000 accounts of 1 KB, entries
# of 256 bytes, 64 summary buckets), one mode at a time: the file's
# `transfer` alone against -p mode=per-op, its `transferBulk` alone
# against -p mode=client-bulk (the other operation's weight set to 0 in a
# copy of the file), closed loop (LEDGER_THREADS workers) and open loop
# at LEDGER_RATE/s; client CPU per committed transaction. Prints
# Markdown tables, then the medians and the ratio file / built-in (the
# bar: at most 1.25); paste the figures into bench/RESULTS.md.
# ONLY=kv or ONLY=ledger runs one comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
duration="${DURATION:-20s}"
threads="${THREADS:-8}"
rate="${RATE:-2000}"
ledger_threads="${LEDGER_THREADS:-8}"
ledger_rate="${LEDGER_RATE:-200}"
only="${ONLY:-}"

if [ "$only" != ledger ]; then
  echo "## generating a 1 KB document with ten generated fields"
  go test -run '^$' -bench 'Document1KB10Fields' -benchtime 200000x ./internal/workloadfile/ | grep -E '^Benchmark'
fi

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

if [ "$only" != ledger ]; then
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

fi

# measure_ledger LOOP MODE WHICH N FLAGS... runs the built-in ledger in
# MODE (per-op or client-bulk) or the file's matching operation alone,
# and prints its table row; it appends loop/mode, which and CPU per
# committed transaction to $rows.
sed -e '/^  transferBulk:/,/weight:/ s/weight: 1/weight: 0/' workloads/ledger.yaml >"$dir/ledger-per-op.yaml"
sed -e '/^  transfer:/,/weight:/ s/weight: 1/weight: 0/' workloads/ledger.yaml >"$dir/ledger-client-bulk.yaml"
measure_ledger() {
  local loop="$1" mode="$2" which="$3" n="$4"
  shift 4
  local workload=(--workload ledger -p mode="$mode")
  [ "$which" = file ] && workload=(--workload "$dir/ledger-$mode.yaml")
  bin/mongobench run --uri "$uri" "${workload[@]}" --duration "$duration" --warmup 5s \
    --results-file "$dir/results.jsonl" --no-report --json "$@" 2>/dev/null |
    python3 -c '
import json, sys
loop, mode, which, n, rows = sys.argv[1:]
d = json.load(sys.stdin)
r = d["testResults"]
txns = r["txns"]
cpu = d["client"]["cpuSeconds"] * 1e6 / txns
ops = [o for o in d["ops"] if o["count"] > 0]
assert len(ops) == 1, [o["name"] for o in ops]
lat = ops[0]["latency"]
cells = [which, mode, n, "%.0f" % d["schedule"]["achievedRate"], str(txns), str(r.get("retries")), str(r.get("failed")),
         "%.0f" % cpu, "%.1f" % d["client"]["cpuPct"], "%.2f" % lat["p50Ms"], "%.2f" % lat["p99Ms"]]
audit = [x for x in d["notes"] if x.startswith("ledger audit: ")]
print("| " + " | ".join(cells) + " |" + ("" if not audit else " <!-- " + audit[0] + " -->"))
with open(rows, "a") as f:
    f.write("\t".join([loop + " " + mode, which, str(cpu)]) + "\n")' "$loop" "$mode" "$which" "$n" "$rows"
}

ledger_side_by_side() {
  local loop="$1" mode="$2"
  shift 2
  for i in $(seq 1 "$repeat"); do
    if [ $((i % 2)) -eq 1 ]; then order="builtin file"; else order="file builtin"; fi
    for which in $order; do measure_ledger "$loop" "$mode" "$which" "$i" "$@"; done
  done
}

if [ "$only" != kv ]; then
  lheader="| workload | mode | run | txns/s | txns | retries | failed | client CPU µs/txn | client CPU % of cores | p50 ms | p99 ms |"
  lrule="|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for mode in per-op client-bulk; do
    echo
    echo "## ledger $mode, closed loop ($ledger_threads threads, $duration, 5s warm-up)"
    echo
    echo "$lheader"
    echo "$lrule"
    ledger_side_by_side closed "$mode" --threads "$ledger_threads"
    echo
    echo "## ledger $mode, open loop at $ledger_rate/s ($duration, 5s warm-up)"
    echo
    echo "$lheader"
    echo "$lrule"
    ledger_side_by_side open "$mode" --rate "$ledger_rate/s"
  done
fi

echo
echo "## client CPU per operation (kv) or committed transaction (ledger), median of $repeat runs"
echo
python3 - "$rows" <<'PY'
import statistics, sys
cells = {}
for line in open(sys.argv[1]):
    loop, which, cpu = line.split("\t")
    cells.setdefault(loop, {}).setdefault(which, []).append(float(cpu))
print("| loop | built-in µs/op (kv) or /txn (ledger) | file µs/op or /txn | file / built-in (bar: ≤ 1.25) |")
print("|---|---:|---:|---:|")
for loop, by in cells.items():
    b, f = statistics.median(by["builtin"]), statistics.median(by["file"])
    print("| %s | %.1f | %.1f | %.2f |" % (loop, b, f, f / b))
PY
