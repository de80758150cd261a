#!/usr/bin/env bash
# Measures that a run's client memory does not grow with its length: one
# kv run (RATE, default 2000/s) of DURATION (default 10m) with a short
# --interval (INTERVAL, default 100ms: ten times the intervals of the
# default one second, so 10 minutes close 6,000 intervals, as 100 minutes
# would) against a throwaway embedded server, its results in that server
# (the run registered and streamed as it goes). The client's resident
# memory (VmRSS) is read every second; the script prints it at 10%, 50%
# and 100% of the run, their ratio, the peak, and what was stored: the
# document's intervals and resolution, and the full-resolution intervals
# in the store's intervals collection.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-10m}"
interval="${INTERVAL:-100ms}"
rate="${RATE:-2000}"

. bench/lib.sh
log="$dir/rss.tsv"
bin/mongobench run --uri "$uri" --rate "$rate/s" --duration "$duration" --warmup 2s --interval "$interval" \
  -p records=10000 -p readPercent=90 --no-report --json --results "$uri" >"$dir/run.json" 2>"$dir/run.err" &
pid=$!
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && printf '%s\t%s\n' "$(($(date +%s) - start))" "$rss" >>"$log"
  sleep 1
done
wait "$pid" || { cat "$dir/run.err" >&2; exit 1; }
python3 - "$log" "$dir/run.json" "$duration" "$interval" <<'PY'
import json, sys
rows = [tuple(map(int, l.split("\t"))) for l in open(sys.argv[1]) if l.strip()]
d = json.load(open(sys.argv[2]))
secs = rows[-1][0]
def at(share):
    t = share * secs
    return min(rows, key=lambda r: abs(r[0] - t))[1] / 1024
r10, r50, r100 = at(0.1), at(0.5), at(0.97)
res = d.get("resolution") or {}
print("| run | intervals closed | document intervals | of | RSS at 10% MB | 50% | 100% | 100%/10% | peak MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
print("| %s at %s/s, --interval %s | %s | %d | %ss | %.1f | %.1f | %.1f | %.3f | %.1f |" % (
    sys.argv[3], d["schedule"].get("targetRate"), sys.argv[4], res.get("fullIntervals", len(d["intervals"])),
    len(d["intervals"]), res.get("intervalSec", "—"), r10, r50, r100, r100 / r10, max(r[1] for r in rows) / 1024))
PY
bin/mongobench results show --results "$uri" --json "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runId"])' "$dir/run.json")" 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("stored: live %s, resolution %s" % ((d.get("live") or {}).get("state"), d.get("resolution")))' || true
