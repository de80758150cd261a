#!/usr/bin/env bash
# Installs Debian packages for the project's setup scripts: through sudo
# when not root, waiting for another apt-get's lock rather than failing,
# updating the package lists only when the first attempt fails, and with
# a policy-rc.d that forbids starting services (exit 101: "action
# forbidden"), so no package starts a daemon behind the tests' back (a
# node exporter on 9100, Prometheus on 9090). An existing policy-rc.d is
# left as it is.
# Usage: scripts/apt-install.sh PACKAGE...
set -euo pipefail

sudo=""
if [[ "$(id -u)" != 0 ]]; then
  sudo="sudo"
fi
policy=/usr/sbin/policy-rc.d
if [[ ! -e "$policy" ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
  trap '$sudo rm -f "$policy"' EXIT
fi
export DEBIAN_FRONTEND=noninteractive
apt=($sudo apt-get -o DPkg::Lock::Timeout=600)
if ! "${apt[@]}" install -y --no-install-recommends "$@" >/dev/null; then
  "${apt[@]}" update >/dev/null
  "${apt[@]}" install -y --no-install-recommends "$@" >/dev/null
fi
