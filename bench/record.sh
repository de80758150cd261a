#!/usr/bin/env bash
# The latency mongobench record adds to an application's round trips:
# the Go driver's find by _id against the embedded server, directly,
# through 'mongobench record' (a process of its own, writing its
# recording) and through a plain relay that copies bytes and records
# nothing (what any proxy costs), alternating in blocks of 500 within one
# invocation of bench/roundtrip; N round trips a path (default 20,000).
# Then record's summary and 'record show' of the recording. Paste the
# table into bench/RESULTS.md.
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
relayport=$((port + 1))
go build -o "$dir/roundtrip" ./bench/roundtrip
"$dir/roundtrip" relay "127.0.0.1:$relayport" "$hostport" &
relay=$!
on_exit+=("kill $relay 2>/dev/null")
"$dir/roundtrip" "mongodb://$hostport/?directConnection=true" "mongodb://127.0.0.1:$port/?directConnection=true" \
  "mongodb://127.0.0.1:$relayport/?directConnection=true" -n "$n"
kill -INT "$rec"
wait "$rec" || true
cat "$dir/record.out"
bin/mongobench record show "$dir/bench.rec" --top 5
