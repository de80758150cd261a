#!/usr/bin/env bash
# One client against a group of four, at a rate one client cannot reach:
# every client process runs with GOMAXPROCS=1 (one core's worth of Go
# scheduling), so one client is the bottleneck, and the group of four
# splits the same schedule (each every fourth slot). Prints a Markdown
# table: the achieved rate against the target, the merged p99 of the
# point reads, whether the run was client-bound, and each client's CPU.
# The results, and with them the group's coordination, go to one
# throwaway embedded server (PORT to choose its port): a group
# coordinates through a MongoDB store. What the clients load:
#   TARGET=server (default): that embedded server, kv point reads
#     (10,000 records, readPercent=100). On two cores the server tops out
#     before one client does.
#   TARGET=responder: bench/responder on RESPONDER_PORT (27931), which
#     answers each find after DELAY (100us) and costs far less per
#     operation than a server, YCSB-C with -p load=false (as
#     bench/responder.sh runs it), so one client becomes the bottleneck:
#     on a 2-vCPU VM one GOMAXPROCS=1 client tops out near 110-120k/s, so
#     the default rate is 130k/s. SPIN (0) and REALTIME (off) are the
#     responder's options: no busy-wait, no SCHED_FIFO, so it leaves the
#     cores to the clients. A client that cannot read its replies in time
#     keeps its workers in flight while replies wait to be read (the
#     receive lag); the run is judged client-bound when the replies waited
#     longer than the responder took (service time), else server-bound
#     (the table says so).
#   RATE (server 8000, responder 130000), DURATION (10s), WARMUP (3s),
#   THREADS (256, the group's)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${TARGET:-server}"
case "$target" in
server) rate="${RATE:-8000}" ;;
responder) rate="${RATE:-130000}" ;;
*) echo "TARGET=$target: want server or responder" >&2; exit 2 ;;
esac
duration="${DURATION:-10s}"
warmup="${WARMUP:-3s}"
threads="${THREADS:-256}"

. bench/lib.sh

# What each client runs against the target (the results always go to uri).
if [ "$target" = responder ]; then
  go build -o bin/responder ./bench/responder
  rport="${RESPONDER_PORT:-27931}"
  bin/responder serve --listen "127.0.0.1:$rport" --delay "${DELAY:-100us}" --spin "${SPIN:-0}" \
    --realtime "${REALTIME:-off}" --records 1000 2>"$dir/responder.log" &
  resp_pid=$!
  trap 'kill "$resp_pid" 2>/dev/null || true; bin/mongobench server stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  for _ in $(seq 50); do
    grep -q listening "$dir/responder.log" 2>/dev/null && break
    sleep 0.1
  done
  load=(--uri "mongodb://127.0.0.1:$rport/?directConnection=true" --results "$uri"
    --workload ycsb-c -p load=false -p recordcount=1000)
  op=READ
else
  load=(--uri "$uri" --workload kv -p records=10000 -p readPercent=100)
  op=read
fi

# run CLIENTS: one group of CLIENTS processes (GOMAXPROCS=1 each) at the
# rate; prints the group's result document as JSON on stdout.
run() {
  local n="$1" id="bench-$1-$$-$RANDOM" pids=()
  for ((i = 0; i < n; i++)); do
    GOMAXPROCS=1 bin/mongobench run "${load[@]}" --rate "$rate" --threads "$threads" \
      --duration "$duration" --warmup "$warmup" --no-report \
      --clients "$n" --client-index "$i" --group "$id" >/dev/null 2>"$dir/$id-$i.err" &
    pids+=("$!")
  done
  for p in "${pids[@]}"; do wait "$p" || { cat "$dir/$id-"*.err >&2; exit 1; }; done
  local runid
  runid="$(grep -ho "result [^ ]*-group-$id" "$dir/$id-"*.err | head -1 | cut -d' ' -f2)"
  bin/mongobench results show "$runid" --results "$uri" --json
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); target: $target" >&2
echo "| clients (GOMAXPROCS=1 each) | target | achieved | $op p99 | $op service time p50 | receive lag p50 | send lag p99 | client-bound | each client's CPU (% of its cores, s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---|"
for n in 1 4; do
  run "$n" | python3 -c '
import json, sys
n, name = sys.argv[1], sys.argv[2]
d = json.load(sys.stdin)
s, g = d["schedule"], d["group"]
op = [o for o in d["ops"] if o["name"] == name][0]
lag = (s.get("sendLag") or {}).get("p99Ms")
rlag = (s.get("receiveLag") or {}).get("p50Ms")
svc = op["serviceTime"].get("p50Ms")
miss = lambda v: "missing" if v is None else "%s ms" % v
cpu = ", ".join("%d: %.0f%% %.1fs" % (m["clientIndex"], m["cpuPct"], m["cpuSeconds"]) for m in g["members"])
print("| %s | %g/s | %.0f/s (%.1f%%) | %s | %s | %s | %s | %s | %s |" % (n, g["targetRate"], s["achievedRate"],
      100 * s["achievedRate"] / g["targetRate"], miss(op["latency"].get("p99Ms")), miss(svc), miss(rlag), miss(lag),
      "yes" if d["client"]["clientBound"] else "no (judged server-bound)" if d["client"].get("serverBound") else "no", cpu))
' "$n" "$op"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
