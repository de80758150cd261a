#!/usr/bin/env bash
# Installs PyMongo, the second real driver whose traffic the record tests
# send through the proxy (internal/record), from Debian's packages
# (python3-pymongo, for /usr/bin/python3): once; a python named by
# MONGOBENCH_PYTHON, or /usr/bin/python3, that already imports pymongo is
# reused. The last line printed is the path of that python.
set -euo pipefail

for py in "${MONGOBENCH_PYTHON:-}" /usr/bin/python3; do
  if [[ -n "$py" ]] && "$py" -c 'import pymongo' 2>/dev/null; then
    echo "install-pymongo: reusing $py ($("$py" -c 'import pymongo; print(pymongo.version)'))"
    echo "$py"
    exit 0
  fi
done

echo "install-pymongo: installing Debian's python3-pymongo"
"$(dirname "$0")/apt-install.sh" python3-pymongo
/usr/bin/python3 -c 'import pymongo'
echo /usr/bin/python3
