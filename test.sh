#!/usr/bin/env bash
# Run the tests, installing what they need first (see run_all.sh --setup-only).
#
#   ./test.sh                 all tiers: unit tests, then every notebook under the smoke profile
#   ./test.sh -m "not slow"   unit tier only (about a minute)
#   ./test.sh tests/test_expr.py -k round_trip   any pytest arguments
set -euo pipefail
cd "$(dirname "$0")"
./run_all.sh --setup-only
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" MPLBACKEND=Agg PYTHONHASHSEED="${PYTHONHASHSEED:-0}"
exec .venv/bin/python -m pytest "$@"
