#!/usr/bin/env bash
# One client against a group of four, at a rate one client cannot reach:
# every client process runs with GOMAXPROCS=1 (one core's worth of Go
# scheduling), so one client is the bottleneck, and the group of four
# splits the same schedule (each every fourth slot). Prints a Markdown
# table: the achieved rate against the target, the merged p99 of kv point
# reads, whether the run was client-bound, and each client's CPU.
# Against one throwaway embedded server (PORT to choose its port); the
# results go to that server (a group coordinates through a MongoDB store).
#   RATE (default 8000), DURATION (10s), WARMUP (3s), THREADS (256, the group's)
set -euo pipefail
cd "$(dirname "$0")/.."
rate="${RATE:-8000}"
duration="${DURATION:-10s}"
warmup="${WARMUP:-3s}"
threads="${THREADS:-256}"

go build -o bin/mongobench ./cmd/mongobench
dir="$(mktemp -d -t mongobench-bench-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$dir"
trap 'bin/mongobench server stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
bin/mongobench server start --small --no-sync-on-commit ${PORT:+--port "$PORT"} >/dev/null
uri="$(bin/mongobench server status --uri)"

# run CLIENTS: one group of CLIENTS processes (GOMAXPROCS=1 each) at the
# rate; prints the group's result document as JSON on stdout.
run() {
  local n="$1" id="bench-$1-$$-$RANDOM" pids=()
  for ((i = 0; i < n; i++)); do
    GOMAXPROCS=1 bin/mongobench run --uri "$uri" --workload kv --rate "$rate" --threads "$threads" \
      --duration "$duration" --warmup "$warmup" -p records=10000 -p readPercent=100 --no-report \
      --clients "$n" --client-index "$i" --group "$id" >/dev/null 2>"$dir/$id-$i.err" &
    pids+=("$!")
  done
  for p in "${pids[@]}"; do wait "$p" || { cat "$dir/$id-"*.err >&2; exit 1; }; done
  local runid
  runid="$(grep -ho "result [^ ]*-group-$id" "$dir/$id-"*.err | head -1 | cut -d' ' -f2)"
  bin/mongobench results show "$runid" --json
}

echo "| clients (GOMAXPROCS=1 each) | target | achieved | read p99 | send lag p99 | client-bound | each client's CPU (% of its cores, s) |"
echo "|---|---:|---:|---:|---:|---|---|"
for n in 1 4; do
  run "$n" | python3 -c '
import json, sys
n = sys.argv[1]
d = json.load(sys.stdin)
s, g = d["schedule"], d["group"]
op = [o for o in d["ops"] if o["name"] == "read"][0]
lag = (s.get("sendLag") or {}).get("p99Ms")
cpu = ", ".join("%d: %.0f%% %.1fs" % (m["clientIndex"], m["cpuPct"], m["cpuSeconds"]) for m in g["members"])
print("| %s | %g/s | %.0f/s (%.1f%%) | %s ms | %s ms | %s | %s |" % (n, g["targetRate"], s["achievedRate"],
      100 * s["achievedRate"] / g["targetRate"], op["latency"].get("p99Ms", "—"), lag if lag is not None else "—",
      "yes" if d["client"]["clientBound"] else "no", cpu))
' "$n"
done
