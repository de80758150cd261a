#!/usr/bin/env bash
# Installs Chromium from Debian's packages (chromium), which the HTML
# report tests drive headless (internal/testsupport/chromium): once; a
# Chromium already on PATH, or named by MONGOBENCH_CHROMIUM_BIN, is
# reused. Also a colour emoji font, so the reports' ✅/❌ marks show in
# screenshots. The last line printed is the path of the browser.
set -euo pipefail

if [[ -n "${MONGOBENCH_CHROMIUM_BIN:-}" ]]; then
  echo "$MONGOBENCH_CHROMIUM_BIN"
  exit 0
fi
for name in chromium chromium-browser; do
  if bin="$(command -v "$name")"; then
    echo "install-chromium: reusing $bin"
    echo "$bin"
    exit 0
  fi
done

echo "install-chromium: installing Debian's chromium"
"$(dirname "$0")/apt-install.sh" chromium fonts-noto-color-emoji
command -v chromium
