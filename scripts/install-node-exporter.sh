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

sudo=""
if [[ "$(id -u)" != 0 ]]; then
  sudo="sudo"
fi
echo "install-node-exporter: installing Debian's prometheus-node-exporter"
# policy-rc.d keeps the package from starting its service (exit 101:
# "action forbidden"), so nothing listens on port 9100 behind our back.
policy=/usr/sbin/policy-rc.d
had_policy=0
[[ -e "$policy" ]] && had_policy=1
if [[ "$had_policy" == 0 ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
fi
trap '[[ "$had_policy" == 0 ]] && $sudo rm -f "$policy"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends prometheus-node-exporter >/dev/null; then
  $sudo apt-get update >/dev/null
  $sudo apt-get install -y --no-install-recommends prometheus-node-exporter >/dev/null
fi
command -v prometheus-node-exporter
