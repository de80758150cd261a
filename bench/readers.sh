#!/usr/bin/env bash
# Measures how the readers scale with a results store of years of runs:
# fills a throwaway embedded server's results store (and a results file)
# with RUNS runs (default 10,000): copies of a recorded ycsb-a run under
# their own ids, 20 labels, 5 test names, one a day apart, one in LONG
# (default 100) lengthened to 2,400 intervals (coarsened when imported).
# Then times, REPEAT times each (default 5, medians printed): `results
# list` (the whole command, connection included), serve's first page
# (a results file is indexed then), its list page, a run's page, for the
# MongoDB store and the results file (STORES, default "mongo file").
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-10000}"
long="${LONG:-100}"
repeat="${REPEAT:-5}"
stores="${STORES:-mongo file}"

. bench/lib.sh
on_exit+=('kill $(jobs -p) 2>/dev/null || true')

python3 - "$runs" "$long" internal/cli/testdata/schema-v1-run.jsonl "$dir/runs.jsonl" <<'PY'
import json, re, sys, datetime
runs, long, src, dst = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
line = open(src).readline().strip()
base = json.loads(line)
rid = base["runId"]
date = re.compile(r'"\$date":"([^"]+)"')
def shifted(s, days):
    def f(m):
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ") - datetime.timedelta(days=days)
        return '"$date":"%s"' % (t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000))
    return date.sub(f, s)
with open(dst, "w") as out:
    for i in range(runs):
        s = line.replace('"%s"' % rid, '"%s-b%05d"' % (rid, i)).replace('"schema-v1"', '"label-%02d"' % (i % 20))
        s = s.replace('"ycsb-a"', '"ycsb-%s"' % "abcde"[i % 5]) if i % 5 else s
        if long and i % long == 0:
            d = json.loads(s)
            ivs = d["intervals"]
            start = datetime.datetime.strptime(d["start"]["$date"], "%Y-%m-%dT%H:%M:%S.%fZ")
            d["intervals"] = [dict(ivs[k % len(ivs)], t={"$date": (start + datetime.timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%S.000Z")}, secs=1) for k in range(2400)]
            d["end"] = {"$date": (start + datetime.timedelta(seconds=2400)).strftime("%Y-%m-%dT%H:%M:%S.000Z")}
            d["duration"] = 2400000
            s = json.dumps(d, separators=(",", ":"))
        out.write(shifted(s, runs - i) + "\n")
PY
echo "runs file: $(du -h "$dir/runs.jsonl" | cut -f1), $runs runs"
if [[ " $stores " == *" mongo "* ]]; then
  t0=$(date +%s)
  bin/mongobench results import --results "$uri" "$dir/runs.jsonl" >/dev/null
  echo "imported in $(( $(date +%s) - t0 )) s"
fi
id="$(head -1 "$dir/runs.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runId"])')"

median() { python3 -c 'import statistics,sys; print("%.0f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
# ms CMD... runs a command and prints its wall time in milliseconds.
ms() { local a b; a=$(date +%s%N); "$@" >/dev/null; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
page() { curl -s -o /dev/null -w '%{time_total}' "$1" | python3 -c 'import sys; print(round(float(sys.stdin.read()) * 1000))'; }

echo
echo "| store | results list ms | serve's first page ms | serve list page ms | serve run page ms |"
echo "|---|---:|---:|---:|---:|"
for where in $stores; do
  if [ "$where" = mongo ]; then flags=(--results "$uri"); else flags=(--results-file "$dir/runs.jsonl"); fi
  list=(); lp=(); rp=()
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  bin/mongobench serve --listen "127.0.0.1:$port" "${flags[@]}" >/dev/null 2>&1 &
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/plans" && break; sleep 0.2; done
  first="$(page "http://127.0.0.1:$port/")" # a results file is indexed on its first read
  for _ in $(seq 1 "$repeat"); do
    list+=("$(ms bin/mongobench results list "${flags[@]}")")
    lp+=("$(page "http://127.0.0.1:$port/")")
    rp+=("$(page "http://127.0.0.1:$port/run/$id")")
  done
  kill %% 2>/dev/null || true
  wait 2>/dev/null || true
  echo "| $where | $(median "${list[@]}") | $first | $(median "${lp[@]}") | $(median "${rp[@]}") |"
done
