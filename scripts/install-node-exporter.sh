#!/usr/bin/env bash
# Installs the Prometheus node exporter from Debian's packages
# (prometheus-node-exporter), which the host-metrics tests start on a
# loopback port: once; a node exporter already on PATH, or named by
# MONGOBENCH_NODE_EXPORTER_BIN, is reused. The Debian package's own
# service is not started: the tests start the exporter themselves.
# The last line printed is the path of the binary.
set -euo pipefail

if [[ -n "${MONGOBENCH_NODE_EXPORTER_BIN:-}" ]]; then
  echo "$MONGOBENCH_NODE_EXPORTER_BIN"
  exit 0
fi
for name in prometheus-node-exporter node_exporter; do
  if bin="$(command -v "$name")"; then
    echo "install-node-exporter: reusing $bin"
    echo "$bin"
    exit 0
  fi
done

echo "install-node-exporter: installing Debian's prometheus-node-exporter"
"$(dirname "$0")/apt-install.sh" prometheus-node-exporter
command -v prometheus-node-exporter
