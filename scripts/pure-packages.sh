#!/usr/bin/env bash
# Prints the pure packages: they decide and render, talk to no server and
# start no process, so their tests run anywhere in seconds (and under the
# race detector in scripts/test.sh and `make unit`). .golangci.yml's
# depguard rule "pure" holds the same list and enforces it.
set -euo pipefail
for p in significance changepoint changes study studyview plan diagnosis spec price hostmap engine hist merge report textreport progress ftdcwindow htmlreport template texttable catalog result ycsb ycsbprops datagen uri threshold browse within workloadfile validity recording queryshape replay; do
  echo "./internal/$p/..."
done
