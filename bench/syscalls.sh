#!/usr/bin/env bash
# Client CPU and system calls per operation, open loop against closed
# loop, for two builds side by side in one invocation: against
# bench/responder (d fixed per rate, so closed loop on CONNS connections
# runs near the rate), each build runs closed loop, then open loop at the
# closed loop's achieved rate × OPEN_SHARE (0.8, so the in-flight bound
# rarely holds an operation back) on the same connections, once plain (client
# CPU per operation from --json: getrusage over the measured phase) and
# once under `strace -c -f` (system calls per operation: every call of
# every thread over the whole run, warm-up and connection included,
# divided by the operations of the whole run, the responder's count of
# finds). Each rate is measured REPEAT times, the two builds' order
# swapped on every repetition so both see the same machine; a summary
# then gives each build's medians and the ratios new/old. The load
# average is in every row. It measures and asserts nothing.
#
# Environment (defaults): OLD=/tmp/mongobench-main (a build of another
#   commit: mkdir /tmp/main-src && git archive main | tar -x -C
#   /tmp/main-src && (cd /tmp/main-src && go build -o /tmp/mongobench-main
#   ./cmd/mongobench)) NEW=bin/mongobench RATES="2000 10000"
#   CONNS=4 DURATION=5s WARMUP=1s PORT=27961 REPEAT=1
#   OLD_FLAGS= NEW_FLAGS= (run flags of each build, e.g. NEW_FLAGS="--pacing dispatch")
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${OLD:-/tmp/mongobench-main}
NEW=${NEW:-bin/mongobench}
RATES=${RATES:-"2000 10000"}
CONNS=${CONNS:-4}
DURATION=${DURATION:-5s}
WARMUP=${WARMUP:-1s}
PORT=${PORT:-27961}
REPEAT=${REPEAT:-1}

go build -o bin/mongobench ./cmd/mongobench
go build -o bin/responder ./bench/responder
work=$(mktemp -d)
export MONGOBENCH_SERVER_DIR="$work/server"
unset MONGOBENCH_URI MONGOBENCH_RESULTS_URI
resp_pid=
cleanup() { if [ -n "$resp_pid" ]; then kill "$resp_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

# one BUILD RATE LOOP DELAY STRACE: one run; prints achieved rate, CPU
# µs/op, send lag p50/p99 µs, syscalls/op (with STRACE=yes).
one() {
	local build=$1 rate=$2 loop=$3 delay=$4 st=$5
	bin/responder serve --listen "127.0.0.1:$PORT" --delay "$delay" --stats "$work/stats.json" 2>"$work/responder.log" &
	resp_pid=$!
	for _ in $(seq 50); do grep -q listening "$work/responder.log" 2>/dev/null && break; sleep 0.1; done
	local pace=()
	[ "$loop" = open ] && pace=(--rate "$rate/s")
	local flags=()
	if [ "$build" = "$OLD" ]; then read -r -a flags <<<"${OLD_FLAGS:-}"; else read -r -a flags <<<"${NEW_FLAGS:-}"; fi
	local cmd=("$build" run "${flags[@]}" --uri "mongodb://127.0.0.1:$PORT/?directConnection=true" --workload ycsb-c -p load=false
		-p recordcount=1000 "${pace[@]}" --threads "$CONNS" --duration "$DURATION" --warmup "$WARMUP"
		--results-file "$work/results.jsonl" --no-report --json)
	if [ "$st" = yes ]; then
		strace -f -c -o "$work/strace.txt" "${cmd[@]}" >"$work/run.json" 2>/dev/null
	else
		"${cmd[@]}" >"$work/run.json" 2>/dev/null
	fi
	kill -TERM "$resp_pid"; wait "$resp_pid" || true; resp_pid=
	python3 - "$work/run.json" "$work/stats.json" "$work/strace.txt" "$st" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); st = json.load(open(sys.argv[2]))
s, c = d["schedule"], d["client"]
lag = s.get("sendLag") or {}
f = lambda v, k=1000: "%.0f" % (k * v) if v is not None else "missing"
calls = "—"
if sys.argv[4] == "yes":
    tot = [l for l in open(sys.argv[3]) if l.strip().endswith("total")]
    n = int(tot[0].split()[3]) if tot else None
    calls = "%.1f" % (n / st["finds"]) if n and st["finds"] else "missing"
cpu = c.get("cpuPerOpUs")
print("\t".join(["%.0f" % s["achievedRate"], "%.1f" % cpu if cpu is not None else "missing", f(lag.get("p50Ms")), f(lag.get("p99Ms")), calls]))
PY
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u +%FT%TZ)"
echo "runs: $DURATION measured after $WARMUP warm-up, $CONNS connections; old $OLD ${OLD_FLAGS:-}, new $NEW ${NEW_FLAGS:-}"
echo
echo "| rate | d | build | loop | achieved ops/s | client CPU µs/op | open / closed CPU | send lag p50 µs | p99 µs | syscalls/op (strace -c -f) | load avg |"
echo "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
rows="$work/rows.tsv"
: >"$rows"
for rate in $RATES; do
	d="$(( CONNS * 1000000 / rate ))us"
	for rep in $(seq 1 "$REPEAT"); do
		order="$OLD $NEW"
		[ $((rep % 2)) -eq 0 ] && order="$NEW $OLD"
		for build in $order; do
			name=new; [ "$build" = "$OLD" ] && name=old
			IFS=$'\t' read -r cr ccpu _ _ _ <<<"$(one "$build" "$rate" closed "$d" no)"
			IFS=$'\t' read -r _ _ _ _ ccalls <<<"$(one "$build" "$rate" closed "$d" yes)"
			orate=$(python3 -c "print(int(float('$cr') * ${OPEN_SHARE:-0.8}))")
			IFS=$'\t' read -r or ocpu olag50 olag99 _ <<<"$(one "$build" "$orate" open "$d" no)"
			IFS=$'\t' read -r _ _ _ _ ocalls <<<"$(one "$build" "$orate" open "$d" yes)"
			ratio=$(python3 -c "print('%.2f' % (float('$ocpu') / float('$ccpu')))" 2>/dev/null || echo missing)
			load=$(cut -d' ' -f1 /proc/loadavg)
			echo "| $rate | $d | $name | closed | $cr | $ccpu | | — | — | $ccalls | $load |"
			echo "| $orate | $d | $name | open | $or | $ocpu | $ratio | $olag50 | $olag99 | $ocalls | $load |"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rate" "$name" "$ccpu" "$ocpu" "$ccalls" "$ocalls" "$olag50" "$olag99" "$load" >>"$rows"
		done
	done
done

echo
echo "Medians over $REPEAT repetitions (load average over the rows: min–max):"
echo
python3 - "$rows" <<'PY'
import statistics, sys
cells = {}
for line in open(sys.argv[1]):
    rate, name, *vals = line.rstrip("\n").split("\t")
    cells.setdefault(rate, {}).setdefault(name, []).append(vals)
def med(rows, i):
    xs = []
    for r in rows:
        try:
            xs.append(float(r[i]))
        except ValueError:
            pass
    return statistics.median(xs) if xs else None
f = lambda v, p="%.1f": p % v if v is not None else "—"
# A run far behind its schedule waits for no slot, so it pays no timer
# wake-up: its CPU per operation is not an open loop's that keeps time.
# The runs that kept it (send lag p50 under 1 ms) are also given apart.
def kept(rows):
    return [r for r in rows if r[4] not in ("", "missing") and float(r[4]) < 1000]
print("| rate | build | closed CPU µs/op | open CPU µs/op | open / closed | open CPU µs/op, runs on schedule (n) | syscalls/op closed | open | send lag p50 µs | p99 µs | load |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for rate, by in cells.items():
    m = {}
    for name in ("old", "new"):
        rows = by.get(name, [])
        c, o = med(rows, 0), med(rows, 1)
        m[name] = (c, o, med(rows, 2), med(rows, 3))
        loads = [float(r[6]) for r in rows]
        k = kept(rows)
        print("| %s | %s | %s | %s | %s | %s (%d) | %s | %s | %s | %s | %s |" % (rate, name, f(c), f(o),
            f(o / c, "%.2f") if c and o else "—", f(med(k, 1)), len(k), f(med(rows, 2)), f(med(rows, 3)), f(med(rows, 4), "%.0f"), f(med(rows, 5), "%.0f"),
            "%.1f–%.1f" % (min(loads), max(loads)) if loads else "—"))
    r = lambda i: f(m["new"][i] / m["old"][i], "%.2f") if m["new"][i] and m["old"][i] else "—"
    print("| %s | new / old | %s | %s | | | %s | %s | | | |" % (rate, r(0), r(1), r(2), r(3)))
PY
