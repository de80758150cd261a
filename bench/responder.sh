#!/usr/bin/env bash
# Calibrates mongobench against bench/responder, a loopback server that
# answers each find after a fixed delay d (and freezes during stalls on a
# schedule), so the true latency of every request is known. For each rate
# it runs YCSB-C (load=false: the responder reports the records loaded)
# with no stall and with stalls, and prints the exact distribution of the
# schedule beside what mongobench reported (latency and service time of
# READ, p50/p99/p99.9), then the run's context: achieved rate, send lag,
# client CPU per op, and the responder's own reply-time error.
#
# It measures and asserts nothing. Environment (defaults):
#   PORT=27931 RATES="2000 10000" DELAY=100us
#   DURATION=10s WARMUP=2s THREADS=64               runs without stalls
#   STALL=1s EVERY=10s FIRST=5s STALL_DURATION=20s STALL_THREADS=2200
#       stall runs; the first stall starts FIRST after the run's first
#       request, so with WARMUP=2s and STALL_DURATION=20s two whole
#       stalls fall in the measured phase. STALL_THREADS bounds the
#       operations in flight; the exact distribution accounts for the
#       bound (an ideal client with as many slots), and the table says
#       how many operations it held.
#   SPIN=30us REALTIME=sender                        responder options
#   STALLS=yes|no                                    skip the stall runs
#   COMPLETIONS="arrival return"   when operations end, each run once per
#       value, side by side: at the reply's kernel receive timestamp (the
#       default) or when the worker has read it (as before timestamps)
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-27931}
RATES=${RATES:-"2000 10000"}
DELAY=${DELAY:-100us}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
THREADS=${THREADS:-64}
STALL=${STALL:-1s}
EVERY=${EVERY:-10s}
FIRST=${FIRST:-5s}
STALL_DURATION=${STALL_DURATION:-20s}
STALL_THREADS=${STALL_THREADS:-2200}
SPIN=${SPIN:-30us}
REALTIME=${REALTIME:-sender}
STALLS=${STALLS:-yes}
COMPLETIONS=${COMPLETIONS:-"arrival return"}
RECORDS=1000

go build -o bin/mongobench ./cmd/mongobench
go build -o bin/responder ./bench/responder

work=$(mktemp -d)
export MONGOBENCH_SERVER_DIR="$work/server" # never the user's embedded server
unset MONGOBENCH_URI MONGOBENCH_RESULTS_URI
resp_pid=
cleanup() {
	if [ -n "$resp_pid" ]; then kill "$resp_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

accuracy="$work/accuracy.md"
context="$work/context.md"
bin/responder compare --header --table accuracy >"$accuracy"
bin/responder compare --header --table context >"$context"

# run LABEL RATE DURATION THREADS STALL COMPLETION
run() {
	local label=$1 rate=$2 duration=$3 threads=$4 stall=$5 completion=$6
	local dir
	dir="$work/$(echo "$label" | tr " /=" "___")"
	mkdir -p "$dir"
	local stallArgs=(--stall "$stall" --every "$EVERY" --first "$FIRST")
	bin/responder serve --listen "127.0.0.1:$PORT" --delay "$DELAY" --spin "$SPIN" --realtime "$REALTIME" \
		--records "$RECORDS" --stats "$dir/stats.json" "${stallArgs[@]}" 2>"$dir/responder.log" &
	resp_pid=$!
	for _ in $(seq 50); do
		grep -q listening "$dir/responder.log" 2>/dev/null && break
		sleep 0.1
	done
	echo "== $label: $rate/s, $duration after $WARMUP warm-up, $threads in flight, stall $stall; $(uptime | sed 's/.*load average/load average/')" >&2
	bin/mongobench run --uri "mongodb://127.0.0.1:$PORT/?directConnection=true" --workload ycsb-c \
		-p load=false -p recordcount=$RECORDS --rate "$rate/s" --threads "$threads" \
		--duration "$duration" --warmup "$WARMUP" --completion "$completion" --results-file "$dir/results.jsonl" --no-report \
		--json >"$dir/run.json" 2>"$dir/run.log" || { cat "$dir/run.log" >&2; return 1; }
	kill -TERM "$resp_pid"
	wait "$resp_pid" || true
	resp_pid=
	local args=(--result "$dir/run.json" --stats "$dir/stats.json" --label "$label" --rate "$rate"
		--warmup "$WARMUP" --duration "$duration" --threads "$threads" --delay "$DELAY" "${stallArgs[@]}")
	bin/responder compare --table accuracy "${args[@]}" >>"$accuracy"
	bin/responder compare --table context "${args[@]}" >>"$context"
}

echo "load before: $(uptime | sed 's/.*load average/load average/')" >&2
for rate in $RATES; do
	for c in $COMPLETIONS; do
		run "$rate/s d=$DELAY at $c" "$rate" "$DURATION" "$THREADS" 0 "$c"
	done
	if [ "$STALLS" = yes ]; then
		for c in $COMPLETIONS; do
			run "$rate/s d=$DELAY stall $STALL/$EVERY at $c" "$rate" "$STALL_DURATION" "$STALL_THREADS" "$STALL" "$c"
		done
	fi
done
echo "load after: $(uptime | sed 's/.*load average/load average/')" >&2

echo "### Exact vs reported (READ; exact from the schedule, the responder's delay and stalls)"
echo
cat "$accuracy"
echo
echo "### Context"
echo
cat "$context"
echo
echo "(runs kept in $work)"
