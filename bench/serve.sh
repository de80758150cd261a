#!/usr/bin/env bash
# Times `mongobench serve` over a results file of N runs (default 1000):
# RUNS (default 3) short real kv runs against a throwaway embedded server,
# each stored document copied under new run ids until the file holds N
# (every copy a whole stored run: intervals, histograms, telemetry); then
# serve on a loopback port, and the list page (every run) and a comparison
# of 3 runs fetched REPEAT times (default 3) each with curl. Prints a
# Markdown table; paste the figures into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-1000}"
runs="${RUNS:-3}"
repeat="${REPEAT:-3}"

go build -o bin/mongobench ./cmd/mongobench
dir="$(mktemp -d -t mongobench-bench-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$dir"
serve_pid=""
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; bin/mongobench server stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
bin/mongobench server start --small --no-sync-on-commit ${PORT:+--port "$PORT"} >/dev/null
uri="$(bin/mongobench server status --print-uri)"
for i in $(seq 1 "$runs"); do
  bin/mongobench run --uri "$uri" --rate 200 --duration 10s -p records=1000 --label "bench-$i" \
    --results-file "$dir/seed.jsonl" --no-report >/dev/null 2>&1
done
python3 - "$dir/seed.jsonl" "$dir/results.jsonl" "$n" <<'PY'
import json, sys
seed = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[2], "w") as out:
    for i in range(int(sys.argv[3])):
        d = dict(seed[i % len(seed)])
        d["runId"] = d["runId"][:-6] + "%06x" % i
        out.write(json.dumps(d) + "\n")
PY
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
bin/mongobench serve --results-file "$dir/results.jsonl" --listen "127.0.0.1:$port" 2>"$dir/serve.log" &
serve_pid=$!
for _ in $(seq 1 100); do
  grep -q "serving the results" "$dir/serve.log" && break
  sleep 0.1
done
ids="$(head -3 "$dir/results.jsonl" | python3 -c 'import json,sys; print("&".join("run=" + json.loads(l)["runId"] for l in sys.stdin))')"
size="$(du -h "$dir/results.jsonl" | cut -f1)"
echo "## serve over a results file of $n runs ($size)"
echo
echo "| page | fetch | HTTP | seconds | bytes |"
echo "|---|---:|---:|---:|---:|"
for i in $(seq 1 "$repeat"); do
  curl -s -o /dev/null -w "| list of every run | $i | %{http_code} | %{time_total} | %{size_download} |\n" "http://127.0.0.1:$port/"
  curl -s -o /dev/null -w "| compare 3 runs | $i | %{http_code} | %{time_total} | %{size_download} |\n" "http://127.0.0.1:$port/compare?$ids"
done
