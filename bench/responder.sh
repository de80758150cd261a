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
#   LOOPS="open closed"   closed-loop runs use CLOSED_THREADS=1 connection
#       and a delay of 1/rate − CLOSED_SLACK (30us), so they run near the
#       rate; their stall runs stall the same way
#   MONGOBENCH=bin/mongobench   the client measured (an older build, to
#       compare before and after against the same responder)
#   BUILDS="before=/tmp/old after=bin/mongobench+--pacing=dispatch"
#       several clients in one invocation: every run once per build, the
#       builds' order swapped from one run to the next, each row labelled
#       with its build's name; flags after a + are added to that build's
#       runs (+ between several)
#
# Every run also keeps the truth per request: the responder's trace (each
# find's kernel arrival, due time, write times and the reply's kernel
# transmit stamp, SO_TIMESTAMPING) and mongobench's (run --trace: each
# operation's intended start, the engine's call, its send (the kernel's
# transmit stamp of its first request), reply arrival, return, latency
# and service time), joined by request id (responder compare --table truth):
# the error of each operation's reported latency and service time against
# the responder's stamps, and where it lives. A client that does not
# number its requests (an older build) shows no truth rows.
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
LOOPS=${LOOPS:-"open closed"}
CLOSED_THREADS=${CLOSED_THREADS:-1}
CLOSED_SLACK=${CLOSED_SLACK:-30}
MONGOBENCH=${MONGOBENCH:-bin/mongobench}
BUILDS=${BUILDS:-}
EXTRA=
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
truth="$work/truth.md"
bin/responder compare --header --table accuracy >"$accuracy"
bin/responder compare --header --table context >"$context"
bin/responder compare --header --table truth >"$truth"

# run LABEL RATE DURATION THREADS STALL COMPLETION [LOOP DELAY]
run() {
	local label=$1 rate=$2 duration=$3 threads=$4 stall=$5 completion=$6 loop=${7:-open} delay=${8:-$DELAY}
	local dir
	dir="$work/$(echo "$label" | tr " /=" "___")"
	mkdir -p "$dir"
	local stallArgs=(--stall "$stall" --every "$EVERY" --first "$FIRST")
	bin/responder serve --listen "127.0.0.1:$PORT" --delay "$delay" --spin "$SPIN" --realtime "$REALTIME" \
		--records "$RECORDS" --stats "$dir/stats.json" --trace "$dir/responder.tsv" "${stallArgs[@]}" 2>"$dir/responder.log" &
	resp_pid=$!
	for _ in $(seq 50); do
		grep -q listening "$dir/responder.log" 2>/dev/null && break
		sleep 0.1
	done
	local load
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "== $label: $loop loop, $rate/s, $duration after $WARMUP warm-up, $threads in flight, d=$delay, stall $stall; load average $load" >&2
	local pace=(--rate "$rate/s")
	[ "$loop" = closed ] && pace=()
	local trace=(--trace "$dir/client.tsv")
	"$MONGOBENCH" run --trace /dev/null --help >/dev/null 2>&1 || trace=() # a build without the calibration mode
	local extra=()
	[ -n "$EXTRA" ] && read -r -a extra <<<"${EXTRA//+/ }"
	"$MONGOBENCH" run "${extra[@]}" --uri "mongodb://127.0.0.1:$PORT/?directConnection=true" --workload ycsb-c \
		-p load=false -p recordcount=$RECORDS "${pace[@]}" --threads "$threads" \
		--duration "$duration" --warmup "$WARMUP" --completion "$completion" "${trace[@]}" --results-file "$dir/results.jsonl" --no-report \
		--json >"$dir/run.json" 2>"$dir/run.log" || { cat "$dir/run.log" >&2; return 1; }
	kill -TERM "$resp_pid"
	wait "$resp_pid" || true
	resp_pid=
	label="$label, load $(echo "$load" | cut -d' ' -f1)"
	if [ "$loop" = open ]; then
		local args=(--result "$dir/run.json" --stats "$dir/stats.json" --label "$label" --rate "$rate"
			--warmup "$WARMUP" --duration "$duration" --threads "$threads" --delay "$delay" "${stallArgs[@]}")
		bin/responder compare --table accuracy "${args[@]}" >>"$accuracy"
		bin/responder compare --table context "${args[@]}" >>"$context"
	fi
	if [ -s "$dir/client.tsv" ]; then
		bin/responder compare --table truth --client "$dir/client.tsv" --server "$dir/responder.tsv" \
			--loop "$loop" --threads "$threads" --label "$label" >>"$truth"
	fi
}

# runs LABEL ARGS... is run once per build of BUILDS (or once, of
# MONGOBENCH), alternating the builds' order from one call to the next.
turn=0
runs() {
	if [ -z "$BUILDS" ]; then
		run "$@"
		return
	fi
	local label=$1 order
	shift
	read -r -a order <<<"$BUILDS"
	if [ $((turn % 2)) -eq 1 ]; then
		read -r -a order <<<"$(printf '%s\n' "${order[@]}" | tac | tr '\n' ' ')"
	fi
	turn=$((turn + 1))
	local b
	for b in "${order[@]}"; do
		local path=${b#*=} extra=
		case $path in *+*) extra=${path#*+} path=${path%%+*} ;; esac
		MONGOBENCH=$path EXTRA=$extra run "${b%%=*}: $label" "$@"
	done
}

echo "load before: $(uptime | sed 's/.*load average/load average/')" >&2
for rate in $RATES; do
	for loop in $LOOPS; do
		if [ "$loop" = open ]; then
			for c in $COMPLETIONS; do
				runs "open $rate/s d=$DELAY at $c" "$rate" "$DURATION" "$THREADS" 0 "$c"
			done
			if [ "$STALLS" = yes ]; then
				for c in $COMPLETIONS; do
					runs "open $rate/s d=$DELAY stall $STALL/$EVERY at $c" "$rate" "$STALL_DURATION" "$STALL_THREADS" "$STALL" "$c"
				done
			fi
			continue
		fi
		d="$(( 1000000 / rate - CLOSED_SLACK ))us"
		for c in $COMPLETIONS; do
			runs "closed ~$rate/s d=$d at $c" "$rate" "$DURATION" "$CLOSED_THREADS" 0 "$c" closed "$d"
		done
		if [ "$STALLS" = yes ]; then
			for c in $COMPLETIONS; do
				runs "closed ~$rate/s d=$d stall $STALL/$EVERY at $c" "$rate" "$STALL_DURATION" "$CLOSED_THREADS" "$STALL" "$c" closed "$d"
			done
		fi
	done
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
echo "### The truth per request (error against the responder's kernel stamps, and where it lives)"
echo
cat "$truth"
echo
echo "(runs kept in $work)"
