#!/usr/bin/env bash
# The noise canary on this machine as it is, then with a second process
# keeping one core busy, then with two: REPEAT readings each (default 5),
# printed as the median of each figure, and the load average beside them.
# It shows what the canary stored with every run says about a busy client
# host (docs/validity.md). Paste the table into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${REPEAT:-5}"
[[ -x bin/mongobench ]] || make build >/dev/null
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

median() { python3 -c 'import json,sys,statistics as s; cs=json.load(sys.stdin); print(" | ".join("%.3g" % s.median([c[k] for c in cs if k in c]) for k in sys.argv[1:]))' "$@"; }
figures=(cpuNsPerStep cpuWorstNsPerStep memNsPerRead loopbackP50Us loopbackP99Us wakeLateP50Us wakeLateP99Us)

header="| busy loops beside it | load average |"
for f in "${figures[@]}"; do header+=" $f |"; done
echo "$header"
echo "|---|---|---|---|---|---|---|---|---|"
for loops in 0 1 2; do
  while [[ ${#pids[@]} -lt $loops ]]; do
    ( while :; do :; done ) &
    pids+=($!)
  done
  sleep 2
  row=$(bin/mongobench canary --repeat "$repeat" --json | median "${figures[@]}")
  echo "| $loops | $(cut -d' ' -f1 /proc/loadavg) | $row |"
done
