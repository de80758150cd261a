#!/usr/bin/env bash
# Measures what streaming a run to its results store costs the client:
# the same kv run (readPercent=90, the wire client) into the MongoDB
# results store, which registers the run and streams its intervals and
# telemetry as it goes, and with --stream=false, which stores the result
# only at the end,
# alternating (swapping which goes first on every repetition) against one
# throwaway embedded server, at each rate of RATES (default 2000 20000).
# A short --interval (INTERVAL, default 100ms) makes ten times as many
# intervals to stream as the default one-second interval would.
# Prints a Markdown table: client CPU per operation, achieved rate and
# send lag p99 per run, then the medians and the ratio on/off per rate.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-3}"
duration="${DURATION:-15s}"
interval="${INTERVAL:-100ms}"
rates="${RATES:-2000 20000}"

. bench/lib.sh
rows="$dir/rows.tsv"
: >"$rows"

# measure RATE STREAM N runs one benchmark, streaming (on) or not (off).
measure() {
  local rate="$1" stream="$2" n="$3" where=()
  [ "$stream" = off ] && where=(--stream=false)
  bin/mongobench run --uri "$uri" --rate "$rate/s" --duration "$duration" --warmup 3s --interval "$interval" \
    -p records=10000 -p readPercent=90 --no-report --json "${where[@]}" 2>/dev/null |
    python3 -c '
import json, sys
rate, stream, n, rows = sys.argv[1:]
d = json.load(sys.stdin)
cpu, lag = d["client"]["cpuPerOpUs"], d["schedule"]["sendLag"]["p99Ms"]
print("| %s | %s | %s | %.1f | %.0f | %.3f | %d |" % (rate, stream, n, cpu, d["schedule"]["achievedRate"], lag, len(d["intervals"])))
with open(rows, "a") as f:
    f.write("\t".join([rate, stream, str(cpu), str(lag)]) + "\n")' "$rate" "$stream" "$n" "$rows"
}

echo "| rate/s | streaming | run | client µs/op | ops/s | send lag p99 ms | intervals |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for rate in $rates; do
  for i in $(seq 1 "$repeat"); do
    if [ $((i % 2)) -eq 1 ]; then order="on off"; else order="off on"; fi
    for s in $order; do measure "$rate" "$s" "$i"; done
  done
done
python3 - "$rows" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
print("\n| rate/s | median µs/op on | off | on/off | median send lag p99 ms on | off |")
print("|---:|---:|---:|---:|---:|---:|")
for rate in dict.fromkeys(r[0] for r in rows):
    med = lambda s, k: statistics.median(float(r[k]) for r in rows if r[0] == rate and r[1] == s)
    print("| %s | %.1f | %.1f | %.3f | %.3f | %.3f |" % (rate, med("on", 2), med("off", 2), med("on", 2) / med("off", 2), med("on", 3), med("off", 3)))
PY
