#!/usr/bin/env bash
# Side-by-side YCSB client efficiency: loads RECORDS records and runs
# workloads A, B and C with OPS operations and THREADS client threads for
# each client, PASSES times, alternating the clients' order between passes,
# each client against a fresh embedded server (--small --no-sync-on-commit)
# on this host, so client and server share the cores. Clients:
#   mongobench-wire    mongobench, -p client=wire (the lean OP_MSG path)
#   mongobench-driver  mongobench, -p client=driver (the Go driver)
#   go-ycsb            $GO_YCSB, or ~/.cache/mongobench/go-ycsb-v1.0.1/go-ycsb
#                      (built there from the Go module v1.0.1 when missing;
#                      workload files from the module, or $GO_YCSB_WORKLOADS)
#   ycsb-0.17          YCSB 0.17 (Java) from $YCSB_HOME, when set
# Every client writes with w=1 (the peers' default connection strings).
# Client CPU is user + system time of the client process: for mongobench
# its own getrusage over the measured phase (the result's
# client.cpuPerOpUs; the load it runs as setup is excluded), for the peers
# the whole `run` process (GNU time), start-up included. Throughput is each
# client's own figure: mongobench's achieved rate, go-ycsb's operations
# over its "Run finished, takes", YCSB's [OVERALL] Throughput. Load docs/s:
# records over the load's wall time (mongobench: from its start to the
# measured phase of a 1-operation run, whose setup is the load, so connect
# and claim are included; the peers: their own load phase figure, one
# insert a call, their default).
#
# The last column counts failed operations (mongobench: errors of every
# class; go-ycsb: its *_ERROR counts; YCSB: its *-FAILED operations).
#
#   bench/ycsb-peers.sh                       # PASSES=2 RECORDS=100000 OPS=300000 THREADS=8
#   CLIENTS="mongobench-wire go-ycsb" bench/ycsb-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
passes="${PASSES:-2}"
records="${RECORDS:-100000}"
ops="${OPS:-300000}"
threads="${THREADS:-8}"
goycsb="${GO_YCSB:-$HOME/.cache/mongobench/go-ycsb-v1.0.1/go-ycsb}"
clients="${CLIENTS:-mongobench-wire mongobench-driver go-ycsb ycsb-0.17}"

go build -o bin/mongobench ./cmd/mongobench
work="$(mktemp -d -t ycsb-peers-XXXXXX)"
export MONGOBENCH_SERVER_DIR="$work/server"
trap 'bin/mongobench server stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# install_goycsb builds go-ycsb v1.0.1 into ~/.cache/mongobench when it is
# missing: 'go install …@v1.0.1' fails on the module proxy's version list,
# so the module is downloaded and built from a copy (a few minutes).
install_goycsb() {
  [[ -x "$goycsb" || -n "${GO_YCSB:-}" ]] && return 0
  echo "(building go-ycsb v1.0.1 into $(dirname "$goycsb"); a few minutes)" >&2
  local mod src="$work/go-ycsb-src"
  mod="$(go mod download -json github.com/pingcap/go-ycsb@v1.0.1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')" || return 0
  cp -r "$mod" "$src" && chmod -R u+w "$src"
  mkdir -p "$(dirname "$goycsb")"
  (cd "$src" && go build -o "$goycsb" ./cmd/go-ycsb) >"$work/go-ycsb-build.log" 2>&1 ||
    { echo "(go-ycsb did not build; see its log)" >&2; tail -5 "$work/go-ycsb-build.log" >&2; return 0; }
}

# goycsb_workloads prints the directory of go-ycsb's workload files.
goycsb_workloads() {
  if [[ -n "${GO_YCSB_WORKLOADS:-}" ]]; then
    echo "$GO_YCSB_WORKLOADS"
  else
    echo "$(go env GOMODCACHE)/github.com/pingcap/go-ycsb@v1.0.1/workloads"
  fi
}

available() {
  case "$1" in
  mongobench-*) return 0 ;;
  go-ycsb) [[ -x "$goycsb" ]] ;;
  ycsb-0.17) [[ -n "${YCSB_HOME:-}" && -d "$YCSB_HOME" ]] ;;
  *) return 1 ;;
  esac
}

fresh_server() {
  bin/mongobench server stop >/dev/null 2>&1 || true
  rm -rf "$MONGOBENCH_SERVER_DIR"
  bin/mongobench server start --small --no-sync-on-commit >/dev/null
  # w=1, as the peers' connection strings set it (their defaults).
  uri="$(bin/mongobench server status --print-uri)&w=1"
  hostport="${uri#mongodb://}"
  hostport="${hostport%%/*}"
}

# timed OUT CMD... runs CMD with its output in OUT and sets wall, cpu (s).
timed() {
  local out="$1"
  shift
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$out" 2>&1 || {
    echo "failed: $* (see below)" >&2
    tail -20 "$out" >&2
    return 1
  }
  read -r wall u s <"$work/time"
  cpu="$(echo "$u + $s" | bc -l)"
}

# ours CLIENT: load, then A, B, C; prints the row's cells.
ours() {
  local path="${1#mongobench-}" w
  local t0
  t0="$(date +%s.%N)"
  bin/mongobench run --uri "$uri" --workload ycsb-a --ops 1 --threads 1 -p client="$path" \
    -p recordcount="$records" --results-file "$work/results.jsonl" --no-report --json >"$work/load.json" 2>"$work/err" ||
    { tail "$work/err" >&2; return 1; }
  load="$(python3 -c '
import datetime, json, sys
d = json.load(open(sys.argv[1]))
s = d["start"]; s = s.get("$date", s) if isinstance(s, dict) else s
start = datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
print(int(sys.argv[2]) / (start - float(sys.argv[3])))' "$work/load.json" "$records" "$t0")"
  rates=() cpus=() errs=()
  for w in a b c; do
    bin/mongobench run --uri "$uri" --workload "ycsb-$w" --ops "$ops" --threads "$threads" -p client="$path" \
      -p recordcount="$records" -p operationcount="$ops" --results-file "$work/results.jsonl" --no-report --json \
      >"$work/run.json" 2>"$work/err" || { tail "$work/err" >&2; return 1; }
    read -r rate cpuop got nerr < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["schedule"]["achievedRate"], d["client"]["cpuPerOpUs"], d["test_config"].get("client"),
      sum(o["errors"]["total"] for o in d["ops"]))' "$work/run.json")
    [[ "$got" == "$path" ]] || { echo "asked for client=$path, ran $got" >&2; return 1; }
    rates+=("$rate") cpus+=("$cpuop") errs+=("$nerr")
  done
}

# goycsb: load, then A, B, C.
peer_goycsb() {
  local url="mongodb://$hostport/ycsb?w=1&directConnection=true" w wl
  local common=(-p recordcount="$records" -p operationcount="$ops" -p threadcount="$threads" -p mongodb.url="$url" -p requestdistribution=zipfian)
  wl="$(goycsb_workloads)"
  timed "$work/out" "$goycsb" load mongodb -P "$wl/workloada" "${common[@]}"
  load="$(echo "$records / $(finished "$work/out")" | bc -l)"
  rates=() cpus=() errs=()
  for w in a b c; do
    timed "$work/out" "$goycsb" run mongodb -P "$wl/workload$w" "${common[@]}"
    rates+=("$(echo "$ops / $(finished "$work/out")" | bc -l)")
    cpus+=("$(echo "$cpu * 1000000 / $ops" | bc -l)")
    errs+=("$(sed -n 's/^[A-Z_]*_ERROR *- .*Count: \([0-9]*\),.*/\1/p' "$work/out" | awk '{n += $1} END {print n + 0}')")
  done
}

# finished FILE prints go-ycsb's "Run finished, takes D" in seconds.
finished() {
  python3 -c '
import re, sys
m = re.search(r"Run finished, takes (\S+)", open(sys.argv[1]).read())
s, total = m.group(1), 0.0
for v, u in re.findall(r"([0-9.]+)(h|ms|µs|us|m|s)", s):
    total += float(v) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "µs": 1e-6, "us": 1e-6}[u]
print(total)' "$1"
}

# peer_ycsb: YCSB 0.17 (Java): load, then A, B, C.
peer_ycsb() {
  local url="mongodb://$hostport/ycsb?w=1" w bin="$YCSB_HOME/bin/ycsb.sh"
  [[ -x "$bin" ]] || bin="$YCSB_HOME/bin/ycsb"
  local common=(-p recordcount="$records" -p operationcount="$ops" -threads "$threads" -p mongodb.url="$url" -p requestdistribution=zipfian)
  timed "$work/out" "$bin" load mongodb -s -P "$YCSB_HOME/workloads/workloada" "${common[@]}"
  load="$(overall "$work/out")"
  rates=() cpus=() errs=()
  for w in a b c; do
    timed "$work/out" "$bin" run mongodb -s -P "$YCSB_HOME/workloads/workload$w" "${common[@]}"
    rates+=("$(overall "$work/out")")
    cpus+=("$(echo "$cpu * 1000000 / $ops" | bc -l)")
    errs+=("$(sed -n 's/^\[[A-Z-]*-FAILED\], Operations, //p' "$work/out" | awk '{n += $1} END {print n + 0}')")
  done
}

overall() { sed -n 's/^\[OVERALL\], Throughput(ops\/sec), //p' "$1"; }

echo "YCSB clients side by side: $records records, $ops operations, $threads threads, $passes passes; $(nproc) cores, $(date -u +%FT%TZ)"
echo
echo "| pass | client | load docs/s | A ops/s | B ops/s | C ops/s | client CPU µs/op A | B | C | failed ops A/B/C |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
[[ " $clients " == *" go-ycsb "* ]] && install_goycsb
read -ra order <<<"$clients"
for pass in $(seq 1 "$passes"); do
  list=("${order[@]}")
  if ((pass % 2 == 0)); then
    list=()
    for ((i = ${#order[@]} - 1; i >= 0; i--)); do list+=("${order[i]}"); done
  fi
  for c in "${list[@]}"; do
    available "$c" || { ((pass > 1)) || echo "($c: not available, skipped)" >&2; continue; }
    fresh_server
    case "$c" in
    mongobench-*) ours "$c" ;;
    go-ycsb) peer_goycsb ;;
    ycsb-0.17) peer_ycsb ;;
    esac
    printf '| %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %s/%s/%s |\n' "$pass" "$c" "$load" \
      "${rates[0]}" "${rates[1]}" "${rates[2]}" "${cpus[0]}" "${cpus[1]}" "${cpus[2]}" "${errs[0]}" "${errs[1]}" "${errs[2]}"
  done
done
