#!/bin/sh
# python.sh — the Python package (python/): installed offline with pip into a scratch
# directory, then its pytest suite run against that installed copy and the shared library of
# this build (TVDS_LIBRARY, set by `make test-python`). Skipped, saying so, only when the
# interpreter lacks numpy or pytest (`make deps` installs python3-numpy and python3-pytest).
#
# usage: tests/python.sh PYTHON
set -eu
py=${1:-/usr/bin/python3}
if ! "$py" -c 'import numpy, pytest' 2>/dev/null; then
    echo "test-python: SKIPPED: $py has no numpy or pytest (make deps installs them)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -rf python/build python/tvds.egg-info' EXIT
# One command, offline, as README says (here into a scratch target instead of the system).
"$py" -m pip install -q --no-build-isolation --no-index --no-deps --target "$tmp/site" ./python \
    >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; echo "test-python: pip install failed"; exit 1; }
[ -f "$tmp/site/tvds/__init__.py" ] || { echo "test-python: pip installed no package"; exit 1; }
# The tests import the installed copy (PYTHONPATH), not python/tvds.
cd python/tests
PYTHONPATH="$tmp/site" TVDS_REPO="$(cd ../.. && pwd)" "$py" -m pytest -q -p no:cacheprovider .
