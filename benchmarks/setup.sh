#!/usr/bin/env bash
# Install the optional comparison libraries for the benchmarks into the
# current Python (the repo's .venv when it exists):
#   HIPS autograd, mygrad (reference frameworks), threadpoolctl (thread limits
#   and BLAS report). PyTorch 2.13.0 comes with the `test` extra.
# Same as: python benchmarks/run.py --install
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
exec "$PY" -m pip install -q autograd mygrad threadpoolctl "$@"
