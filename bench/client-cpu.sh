#!/usr/bin/env bash
# Measures mongobench's own CPU per operation:
#   1. the engine alone (scheduling, timing, HDR recording, interval
#      rotation) around a no-op task, via Go benchmarks;
#   2. kv point reads (readPercent=100) and updates (readPercent=0) over
#      the Go driver (-p client=driver) and the lean wire client
#      (-p client=wire), side by side against one throwaway embedded
#      server: closed loop (THREADS workers), then open loop at RATE/s.
#      Client CPU is getrusage over the measured phase, divided by the
#      completed operations;
#   3. the ledger's transactions (over the driver) at LEDGER_RATE/s
#      (default 200), client CPU per transaction.
# Each cell runs REPEAT times (default 3); the two clients alternate, and
# swap which goes first on every repetition, so both see the same
# machine. Prints Markdown tables, then the medians and the ratio
# wire/driver; paste the figures into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
duration="${DURATION:-20s}"
threads="${THREADS:-8}"
rate="${RATE:-2000}"

echo "## engine alone (no-op task)"
go test -run '^$' -bench 'Noop' -benchtime 1000000x ./internal/engine/ | grep -E '^Benchmark'

. bench/lib.sh
rows="$dir/rows.tsv"
: >"$rows"

# measure LOOP OP CLIENT RUN FLAGS... runs one kv benchmark and prints its
# table row: ops/s, client CPU, send lag (open loop only), latencies; it
# also appends loop, op, client and CPU per op to $rows.
measure() {
  local loop="$1" op="$2" client="$3" n="$4"
  shift 4
  local pct=100
  [ "$op" = update ] && pct=0
  bin/mongobench run --uri "$uri" --duration "$duration" --warmup 5s -p records=10000 -p readPercent="$pct" \
    -p client="$client" --results-file "$dir/results.jsonl" --no-report --json "$@" 2>/dev/null |
    python3 -c '
import json, sys
loop, op, client, n, rows = sys.argv[1:]
d = json.load(sys.stdin)
r = [o for o in d["ops"] if o["name"] == op][0]
got = d["test_config"]["client"] if "test_config" in d else client
lag = d["schedule"].get("sendLag")
cpu = d["client"]["cpuPerOpUs"]
cells = [op, client if got == client else client + " (ran " + got + ")", n, "%.0f" % d["schedule"]["achievedRate"], "%.1f" % cpu, "%.1f" % d["client"]["cpuPct"]]
if lag:
    cells += ["%.3f" % lag["p50Ms"], "%.3f" % lag["p99Ms"]]
cells += ["%.3f" % r["latency"]["p50Ms"], "%.3f" % r["latency"]["p99Ms"], "%.3f" % r["serviceTime"]["p50Ms"]]
print("| " + " | ".join(cells) + " |")
with open(rows, "a") as f:
    f.write("\t".join([loop, op, client, str(cpu)]) + "\n")' "$loop" "$op" "$client" "$n" "$rows"
}

# side_by_side LOOP FLAGS... runs every op and client REPEAT times.
side_by_side() {
  local loop="$1"
  shift
  for op in read update; do
    for i in $(seq 1 "$repeat"); do
      if [ $((i % 2)) -eq 1 ]; then order="driver wire"; else order="wire driver"; fi
      for client in $order; do measure "$loop" "$op" "$client" "$i" "$@"; done
    done
  done
}

echo
echo "## closed loop, kv against the embedded server ($threads threads, $duration, 5s warm-up, 10,000 × 1 KB)"
echo
echo "| op | client | run | ops/s | client CPU µs/op | client CPU % of cores | latency p50 ms | latency p99 ms | service p50 ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
side_by_side closed --threads "$threads"

echo
echo "## open loop at $rate/s, kv against the embedded server (64 in flight, $duration, 5s warm-up)"
echo
echo "| op | client | run | achieved ops/s | client CPU µs/op | client CPU % of cores | send lag p50 ms | send lag p99 ms | latency p50 ms | latency p99 ms | service p50 ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
side_by_side open --rate "$rate/s"

echo
echo "## ledger transactions over the driver, open loop at ${LEDGER_RATE:-200}/s ($duration, 5s warm-up)"
echo
echo "The ledger's multi-document transactions stay on the Go driver (sessions,"
echo "transactions and retries are the driver's); this is their client cost per"
echo "transaction, each of several round trips."
echo
echo "| run | achieved txn/s | client CPU µs/txn | client CPU % of cores | latency p50 ms | latency p99 ms |"
echo "|---:|---:|---:|---:|---:|---:|"
for i in $(seq 1 "$repeat"); do
  bin/mongobench run --uri "$uri" --workload ledger --rate "${LEDGER_RATE:-200}/s" --duration "$duration" --warmup 5s \
    --results-file "$dir/results.jsonl" --no-report --json 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [o for o in d["ops"] if o["name"] == "txn"][0]
print("| %s | %.0f | %.1f | %.1f | %.3f | %.3f |" % (sys.argv[1], d["schedule"]["achievedRate"], d["client"]["cpuPerOpUs"],
    d["client"]["cpuPct"], r["latency"]["p50Ms"], r["latency"]["p99Ms"]))' "$i"
done

echo
echo "## client CPU per operation, median of $repeat runs"
echo
python3 - "$rows" <<'EOF'
import statistics, sys
cells = {}
for line in open(sys.argv[1]):
    loop, op, client, cpu = line.split("\t")
    cells.setdefault((loop, op), {}).setdefault(client, []).append(float(cpu))
print("| loop | op | driver µs/op | wire µs/op | wire / driver |")
print("|---|---|---:|---:|---:|")
for (loop, op), by in cells.items():
    d, w = statistics.median(by.get("driver", [0])), statistics.median(by.get("wire", [0]))
    print("| %s | %s | %.1f | %.1f | %s |" % (loop, op, d, w, "%.2f" % (w / d) if d else "—"))
EOF
