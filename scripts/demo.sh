#!/usr/bin/env bash
# The README's first command (via `make demo`): a short open-loop benchmark
# against the embedded default server, started if it is not running, then
# the summary and a Markdown report with charts.
set -euo pipefail
cd "$(dirname "$0")/.."

bin/mongobench server start
bin/mongobench run --workload kv --rate 1000/s --duration 20s --warmup 5s \
  -p records=20000 -p docSize=1KB -p readPercent=90 \
  --label demo --report-dir mongobench-reports
echo
echo "The embedded server keeps running; 'bin/mongobench server stop' stops it."
echo "Stored runs: bin/mongobench results list"
