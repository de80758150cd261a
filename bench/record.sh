#!/usr/bin/env bash
# The latency mongobench record adds to an application's round trips:
# the Go driver's find by _id against the embedded server, directly and
# through 'mongobench record' (a process of its own, writing its
# recording), alternating in blocks of 500 within one invocation of
# bench/roundtrip; N round trips a side (default 20,000). Then the
# recording is read back ('go test' is not needed: the summary line of
# record). Paste the table into bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
n="${N:-20000}"
port="${RECORD_PORT:-27517}"
hostport="${uri#mongodb://}"; hostport="${hostport%%/*}"; hostport="${hostport%%\?*}"
bin/mongobench record --listen "127.0.0.1:$port" --uri "$uri" --out "$dir/bench.rec" >"$dir/record.out" 2>"$dir/record.err" &
rec=$!
on_exit+=("kill $rec 2>/dev/null")
for _ in $(seq 50); do
  grep -q recording "$dir/record.err" 2>/dev/null && break
  sleep 0.1
done
go run ./bench/roundtrip "mongodb://$hostport/?directConnection=true" "mongodb://127.0.0.1:$port/?directConnection=true" "$n"
kill -INT "$rec"
wait "$rec" || true
cat "$dir/record.out"
ls -l "$dir/bench.rec" | awk '{print "recording: " $5 " bytes"}'
