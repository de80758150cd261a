#!/usr/bin/env bash
# A run of 24 hours' worth of one-second intervals, end to end through the
# readers. A real kv run of DURATION (default 20s) against a throwaway
# embedded server is recorded into a results file; bench/dayrun repeats
# its intervals for N seconds (default 86400), written as the results
# file's stream writes a long run (every interval and telemetry reading
# as a record line, then the run's line, its document bounded, its
# intervals kept on the runner's ladder). The script then imports the
# file into the server's results store and opens the run with every
# reader, timing each: results show (Markdown and HTML reports), the
# Performance Tables template (tables), the results browser's run page
# and list, results rebuild's check of the run's histograms against its
# 86,400 stored intervals, and a capacity plan answered from it (plan
# --from-results: the run is marked as the baseline candidate's run of
# a one-candidate plan). It prints the document's size and resolution,
# the records stored, and each reader's time.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-86400}"
duration="${DURATION:-20s}"

. bench/lib.sh
go build -o "$dir/dayrun" ./bench/dayrun
bin/mongobench run --uri "$uri" --duration "$duration" --rate 1000/s -p records=10000 --no-report \
  --results-file "$dir/short.jsonl" >/dev/null 2>&1
id="20261126T000000Z-day$(printf '%05d' $((RANDOM % 100000)))"
ms() { local s e; s=$(date +%s%N); "$@" >"$dir/out" 2>&1 || { cat "$dir/out" >&2; return 1; }; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
t_gen=$(ms "$dir/dayrun" -in "$dir/short.jsonl" -out "$dir/day.jsonl" -n "$n" -id "$id" -plan day-plan -candidate day)
size_mb=$(du -mc "$dir/day.jsonl" "$dir/day.records.jsonl" | tail -1 | cut -f1)
t_import=$(ms bin/mongobench results import --results "$uri" "$dir/day.jsonl")
t_show=$(ms bin/mongobench results show "$id" --results "$uri" --report-dir "$dir/reports")
grep -q "merged into intervals of" "$dir"/reports/*.md
t_tables=$(ms bin/mongobench tables templates/performance-tables.md --results "$uri" -o "$dir/tables.md")
t_rebuild=$(ms bin/mongobench results rebuild "$id" --results "$uri")
port=$((20000 + RANDOM % 20000))
bin/mongobench serve --results "$uri" --listen "127.0.0.1:$port" >"$dir/serve.log" 2>&1 &
serve=$!
on_exit+=("kill $serve")
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
t_page=$(ms curl -fs -o "$dir/run.html" "http://127.0.0.1:$port/run/$id")
grep -q "$id" "$dir/run.html"
t_list=$(ms curl -fs -o "$dir/list.html" "http://127.0.0.1:$port/")
cat >"$dir/plan.yaml" <<'EOF'
name: day-plan
scenario: {workload: kv, rate: 1000/s, duration: 24h}
candidates:
  - {label: day, uri: "mongodb://127.0.0.1:27017", instance: {type: this host, vCPU: 2}, price: 100 USD/month, baseline: true}
demand:
  calibrate: {users: 1000, throughput: 50%}
  stages: [{name: next year, users: 1100}]
constraints: [errors <= 0.1%]
EOF
t_plan=$(ms bin/mongobench plan "$dir/plan.yaml" --from-results --results "$uri" --no-report)
bin/mongobench plan "$dir/plan.yaml" --from-results --results "$uri" --json >"$dir/plan.json" || [ $? = 99 ]
python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["Assessments"][0]
assert a["Repetitions"] == 1 and a["Throughput"] > 0, a  # the plan read the day run
' "$dir/plan.json"
bin/mongobench results show "$id" --results "$uri" --json >"$dir/doc.json"
python3 - "$dir/doc.json" "$n" "$size_mb" "$t_gen" "$t_import" "$t_show" "$t_tables" "$t_rebuild" "$t_page" "$t_list" "$t_plan" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n, size, gen, imp, show, tables, rebuild, page, lst, plan = sys.argv[2:]
r = d.get("resolution") or {}
doc = len(json.dumps(d))
print("| intervals (1 s) | results file MB | document intervals | of | full intervals | document JSON KB | write ms | import ms | show + reports ms | tables ms | rebuild check ms | serve run page ms | serve list ms | plan --from-results ms |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
print("| %s | %s | %d | %gs | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (n, size, len(d["intervals"]), r.get("intervalSec", 0), r.get("fullIntervals"), doc // 1024, gen, imp, show, tables, rebuild, page, lst, plan))
PY
