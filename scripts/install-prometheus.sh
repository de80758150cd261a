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

sudo=""
if [[ "$(id -u)" != 0 ]]; then
  sudo="sudo"
fi
echo "install-prometheus: installing Debian's prometheus"
# policy-rc.d keeps the package from starting its service (exit 101:
# "action forbidden"), so nothing listens on port 9090 behind our back.
policy=/usr/sbin/policy-rc.d
had_policy=0
[[ -e "$policy" ]] && had_policy=1
if [[ "$had_policy" == 0 ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
fi
trap '[[ "$had_policy" == 0 ]] && $sudo rm -f "$policy"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends prometheus >/dev/null; then
  $sudo apt-get update >/dev/null
  $sudo apt-get install -y --no-install-recommends prometheus >/dev/null
fi
command -v prometheus
