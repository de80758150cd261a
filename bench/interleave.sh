#!/usr/bin/env bash
# compare --interleave on real runs (issue 36): how many interleaved runs
# find a 10% change of the read p99, and how often an A/A comparison calls
# anything worse or better.
#   1. a throwaway embedded server (bench/lib.sh) and two delay proxies in
#      front of it (bench/delayproxy): A's adds nothing, B's a fixed delay
#      each way of 5% of the read p99 measured through A (the median of
#      three runs after one that loads the data; so B's p99 is
#      about 10% higher; its p50 moves more, relatively);
#   2. CHANGES trials of 'compare --interleave' A against B: the look and
#      the runs a side at which p99 read was first decided (the progress
#      lines) and its verdict, and where the comparison stopped;
#   3. N trials of A against A: the metrics called worse or better.
# Both use --min-effect p99=5% (a 10% change must be callable) and the
# same plan. Prints one row a trial and a summary, with the load average.
# Environment: N (A/A trials, default 20), CHANGES (default 5), MIN_RUNS
# (5), MAX_RUNS (20), AA_MAX_RUNS (7), RATE (500/s), DURATION (2s),
# RECORDS (1000).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${N:-20}"
changes="${CHANGES:-5}"
min_runs="${MIN_RUNS:-5}"
max_runs="${MAX_RUNS:-20}"
aa_max="${AA_MAX_RUNS:-7}"
rate="${RATE:-500/s}"
duration="${DURATION:-2s}"
records="${RECORDS:-1000}"
source bench/lib.sh
go build -o "$dir/delayproxy" ./bench/delayproxy
host="${uri#mongodb://}"
host="${host%%/*}"

# proxy NAME DELAY starts a delay proxy and sets proxy_uri to its URI.
proxy() {
  "$dir/delayproxy" "$host" "$2" >"$dir/$1.addr" &
  on_exit+=("kill $!")
  for _ in $(seq 50); do [ -s "$dir/$1.addr" ] && break; sleep 0.1; done
  proxy_uri="${uri/$host/$(cat "$dir/$1.addr")}"
}
# scenario NAME URI LABEL writes a scenario file.
scenario() {
  printf 'workload: kv\nuri: "%s"\nrate: %s\nthreads: 16\nduration: %s\nwarmup: 500ms\nlabel: %s\nparams: {records: %s, readPercent: 100}\n' \
    "$2" "$rate" "$duration" "$3" "$records" >"$dir/$1.yaml"
}

proxy a 0
a_uri="$proxy_uri"
scenario a "$a_uri" a
bin/mongobench run "$dir/a.yaml" --results-file "$dir/probe.jsonl" --no-report >/dev/null 2>&1 # loads the data: not a probe
p99s=()
for _ in 1 2 3; do
  p99s+=("$(bin/mongobench run "$dir/a.yaml" --results-file "$dir/probe.jsonl" --no-report --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print([o["latency"]["p99Ms"] for o in d["ops"] if o["name"]=="read"][0])')")
done
p99="$(printf '%s\n' "${p99s[@]}" | sort -g | sed -n 2p)"
delay_us="$(python3 -c "print(max(1, round($p99 * 1000 * 0.05)))")"
proxy b "${delay_us}us"
scenario b "$proxy_uri" b
scenario a2 "$a_uri" a2
echo "read p99 through A's proxy: ${p99s[*]} ms (median $p99 ms); B's proxy adds ${delay_us} µs each way"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# trial KIND B_FILE MAX prints one row: the look and runs a side at which
# p99 read was first decided, its verdict, where it stopped, and the
# metrics called worse or better.
trial() {
  local out="$dir/out.json" err="$dir/err.txt"
  bin/mongobench compare --interleave --scenario "$dir/a.yaml" --scenario "$dir/$2.yaml" --min-runs "$min_runs" --max-runs "$3" \
    --min-effect p99=5% --results-file "$dir/results.jsonl" --report-dir "" --json >"$out" 2>"$err"
  python3 - "$1" "$out" "$err" <<'PY'
import json, re, sys
kind, out, err = sys.argv[1:]
d = json.load(open(out))
first = "—"
for l in open(err):
    m = re.match(r"look (\d+) of (\d+) at (\d+) runs a side: (.*)", l)
    rest = m.group(4).strip() if m else ""
    undecided = rest[len("undecided: "):].split(", ") if rest.startswith("undecided: ") else []
    if m and first == "—" and "p99 read" not in undecided:
        first = m.group(3)
v = {r["metric"]: r["verdict"] for r in d["metrics"]}
called = [f'{k} {x}' for k, x in v.items() if x in ("worse", "better")]
print(f'{kind}\tp99 read decided at {first} runs a side: {v.get("p99 read")}\tstopped at look {d["look"]} of {d["looks"]}, {len(d["sides"][0]["runs"])} runs a side, decided {d["decided"]}\tcalled: {", ".join(called) or "none"}')
PY
}
echo
echo "## a 10% p99 change (A against B), $changes trials, looks from $min_runs to $max_runs runs a side"
for i in $(seq "$changes"); do trial "change $i" b "$max_runs"; done
echo
echo "## A/A (A against A), $n trials, looks from $min_runs to $aa_max runs a side"
for i in $(seq "$n"); do trial "A/A $i" a2 "$aa_max"; done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
