#!/usr/bin/env bash
# The comparison study of issue 5 on one machine: the embedded server pinned
# to one CPU ("cpu1") and to two ("cpu2"), each swept automatically with
# YCSB workload B on a small dataset until it saturates, then compared.
#   1. two throwaway servers (--small --no-sync-on-commit), one per CPU set;
#   2. 'sweep --rate auto' on each (grow ×2 from START/s, bisect), labelled
#      and priced (invented prices: cpu1 $0.10/h, cpu2 $0.19/h);
#   3. 'compare --label cpu2 --label cpu1': the ratio table and the verdict.
# Prints each sweep's table and the comparison; the reports (sweep tables
# and both charts, the comparison and its charts) go to $OUT.
# Environment: RECORDS (default 20000), START (500), DURATION (10s),
# WARMUP (3s), SLA (50ms), OUT (mongobench-reports/sweep-compare).
set -euo pipefail
cd "$(dirname "$0")/.."
records="${RECORDS:-20000}"
start="${START:-500}"
duration="${DURATION:-10s}"
warmup="${WARMUP:-3s}"
sla="${SLA:-50ms}"
out="${OUT:-mongobench-reports/sweep-compare}"

work="$(mktemp -d -t mongobench-sweep-XXXXXX)"
results="$work/results.jsonl"
stop_all() {
  for s in cpu1 cpu2; do MONGOBENCH_SERVER_DIR="$work/$s" bin/mongobench server stop >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap stop_all EXIT
mkdir -p "$out"

declare -A cpus=([cpu1]=0 [cpu2]=0-1) price=([cpu1]=0.10 [cpu2]=0.19)
began=$(date +%s)
for s in cpu1 cpu2; do
  export MONGOBENCH_SERVER_DIR="$work/$s"
  bin/mongobench server start --small --no-sync-on-commit --cpus "${cpus[$s]}" >/dev/null
  uri="$(bin/mongobench server status --print-uri)"
  echo "## $s: server pinned to CPUs ${cpus[$s]}"
  echo
  t0=$(date +%s)
  bin/mongobench sweep --uri "$uri" --results-file "$results" --workload ycsb-b -p recordcount="$records" \
    --rate auto --start-rate "$start" --rate-factor 2 --duration "$duration" --warmup "$warmup" --p99 "$sla" \
    --label "$s" --price "${price[$s]} USD/h" --report-dir "$out" 2>/dev/null
  echo
  echo "($s sweep: $(( $(date +%s) - t0 )) s)"
  echo
  bin/mongobench server stop >/dev/null
done
unset MONGOBENCH_SERVER_DIR
echo "## compare"
echo
bin/mongobench compare --results-file "$results" --label cpu2 --label cpu1 --workload ycsb-b --p99 "$sla" --report-dir "$out"
echo
echo "(whole study: $(( $(date +%s) - began )) s; reports in $out)"
