#!/usr/bin/env bash
# Runs the README's test command (make test) RUNS times in a row (default
# 3), each on a fresh clone of this repository's HEAD, while a second process keeps
# one core busy, as a shared machine does: the suite's tests judge
# properties, never timings or ranks among equal answers, so each run must
# pass. Prints one row per run (exit code, wall time, the load average at
# its end) and exits 1 when any run failed. The clone reuses the embedded
# server and the lint already installed in ~/.cache/mongobench. LOGS=DIR
# keeps every run's whole log there (run-N.log); without it they go with
# the clone, the end of a failed run's log printed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
src="$(pwd)"
work="$(mktemp -d -t mongobench-loaded-XXXXXX)"
burner=""
cleanup() {
  [[ -n "$burner" ]] && kill "$burner" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# One core kept busy for the whole of every run.
( while :; do :; done ) &
burner=$!

echo "| run | exit | wall (s) | load average at the end |"
echo "|---|---|---|---|"
failed=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  code=0
  rm -rf "$work/clone"
  git clone -q "$src" "$work/clone"
  (cd "$work/clone" && make test >"$work/run-$i.log" 2>&1) || code=$?
  end=$(date +%s)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if [[ -n "${LOGS:-}" ]]; then mkdir -p "$LOGS" && cp "$work/run-$i.log" "$LOGS/"; fi
  echo "| $i | $code | $((end - start)) | $load |"
  if [[ $code -ne 0 ]]; then
    failed=1
    echo "run $i failed; the end of its log:" >&2
    tail -n 40 "$work/run-$i.log" >&2
  fi
done
exit $failed
