#!/usr/bin/env bash
# A recorded application's traffic swept faster until it breaks: PyMongo
# (scripts/install-pymongo.sh) seeds 1,000 orders directly, then sends
# its reads through 'mongobench record' for SECONDS (default 5) at about
# RATE requests a second (default 200): a find by _id, and every tenth
# an aggregation by status read in batches of 50 (getMores). The
# recording is then swept by speed (SPEEDS, default 1,4,16,64,256)
# against the same embedded server, read-only, each step bounded by
# P99 (default 20ms). Paste the sweep's table into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
py="$(scripts/install-pymongo.sh | tail -n 1)"
. bench/lib.sh
port="${RECORD_PORT:-27527}"
bin/mongobench record --listen "127.0.0.1:$port" --uri "$uri" --out "$dir/app.rec" >"$dir/record.out" 2>"$dir/record.err" &
rec=$!
on_exit+=("kill $rec 2>/dev/null")
for _ in $(seq 50); do
  grep -q recording "$dir/record.err" 2>/dev/null && break
  sleep 0.1
done
"$py" - "$uri" "127.0.0.1:$port" "${SECONDS_:-${SECONDS_RECORDED:-5}}" "${RATE:-200}" <<'PY'
import sys, time
import pymongo
direct, proxy, seconds, rate = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
seed = pymongo.MongoClient(direct)["shop"]["orders"]
seed.drop()
seed.insert_many([{"_id": i, "status": "ABCD"[i % 4], "qty": i % 100} for i in range(1000)])
app = pymongo.MongoClient("mongodb://%s/?directConnection=true&appName=bench-replay" % proxy)["shop"]["orders"]
start, n = time.monotonic(), 0
while time.monotonic() - start < seconds:
    due = start + n / rate
    if due > time.monotonic():
        time.sleep(due - time.monotonic())
    if n % 10 == 9:
        sum(1 for _ in app.aggregate([{"$match": {"status": "ABCD"[n % 4]}}, {"$sort": {"qty": -1}}], batchSize=50))
    else:
        app.find_one({"_id": n % 1000})
    n += 1
print("sent", n, "requests in", round(time.monotonic() - start, 3), "s")
PY
kill -INT "$rec"
wait "$rec" || true
cat "$dir/record.out"
bin/mongobench record show "$dir/app.rec" --top 5
[[ -n "${KEEP_REC:-}" ]] && cp "$dir/app.rec" "$KEEP_REC"
bin/mongobench sweep --workload "$dir/app.rec" --speed "${SPEEDS:-1,4,16,64,256}" --p99 "${P99:-20ms}" \
  --results-file "$dir/results.jsonl" --report-dir "" --label replay-bench || true
# The recording replayed at its own pace and twice as fast: the achieved
# rate against the recorded and the replay's own send lag.
echo
echo "| speed | recorded/s | target/s | achieved/s | achieved / target | send lag p50 ms | send lag p99 ms | validity |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|"
for s in 1 2; do
  bin/mongobench replay "$dir/app.rec" --uri "$uri" --speed "$s" --results-file "$dir/results.jsonl" \
    --report-dir "" --label "replay-x$s" --json >"$dir/replay-$s.json" 2>"$dir/replay-$s.err" || true
  "$py" - "$dir/replay-$s.json" "$s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, sch = d["replay"], d["schedule"]
rec = r.get("recordedRate") or 0
target = rec * float(sys.argv[2])
lag = sch.get("sendLag") or {}
f = lambda v: "—" if v is None else "%.3f" % v
v = d.get("validity") or {}
validity = v.get("state", "—")
flagged = [r["rule"] for r in v.get("rules", []) if r.get("outcome") not in ("valid", "not judged")]
if flagged:
    validity += " (" + ", ".join(flagged) + ")"
print("| %s | %.1f | %.1f | %.1f | %.3f | %s | %s | %s |" % (sys.argv[2], rec, target, sch["achievedRate"],
      sch["achievedRate"] / target if target else float("nan"), f(lag.get("p50Ms")), f(lag.get("p99Ms")), validity))
PY
done
# A plan on the recording: two local profiles, one and two CPUs, at its
# own pace and twice and four times as fast (PLAN=0 skips it).
if [[ "${PLAN:-1}" != 0 ]]; then
  cat >"$dir/plan.yaml" <<YAML
name: replay-bench
scenario: {workload: "$dir/app.rec"}
candidates:
  - {label: one-cpu, profile: {cpus: "0", cacheSize: 256MB}, price: 73 USD/month, baseline: true}
  - {label: two-cpu, profile: {cpus: "0-1", cacheSize: 256MB}, price: 139 USD/month}
demand: {stages: [{name: today, growth: 1}, {name: twice, growth: 2}, {name: four times, growth: 4}]}
constraints: ["p99 <= ${P99:-20ms}", "errors <= 0.1%"]
YAML
  echo
  bin/mongobench plan "$dir/plan.yaml" --results-file "$dir/plan.jsonl" --report-dir "$dir/reports" 2>"$dir/plan.err" || true
  sed -n '/^## Stages/,$p' "$dir/reports/plan-replay-bench.md" 2>/dev/null || tail -n 5 "$dir/plan.err"
fi
