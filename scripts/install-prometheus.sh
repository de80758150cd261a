#!/usr/bin/env bash
# Installs Prometheus from Debian's packages (prometheus), which the live
# metrics test starts on a loopback port to scrape a run's --metrics-addr:
# once; a prometheus already on PATH, or named by MONGOBENCH_PROMETHEUS_BIN,
# is reused. The Debian package's own service is not started: the test
# starts Prometheus itself, with its own configuration and data directory.
# The last line printed is the path of the binary.
set -euo pipefail

if [[ -n "${MONGOBENCH_PROMETHEUS_BIN:-}" ]]; then
  echo "$MONGOBENCH_PROMETHEUS_BIN"
  exit 0
fi
if bin="$(command -v prometheus)"; then
  echo "install-prometheus: reusing $bin"
  echo "$bin"
  exit 0
fi

echo "install-prometheus: installing Debian's prometheus"
"$(dirname "$0")/apt-install.sh" prometheus
command -v prometheus
