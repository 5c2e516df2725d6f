#!/usr/bin/env bash
# Run the tests, installing what they need first (see run_all.sh --setup-only).
#
#   ./test.sh                 all tiers: unit tests, then every notebook under the smoke profile
#   ./test.sh -m "not slow"   unit tier only (about a minute)
#   ./test.sh tests/test_expr.py -k round_trip   any pytest arguments
# Without arguments, two pytest processes share the machine: the tests marked `renders` (the notebooks' smoke
# renders, which share results/ and build/notebooks/, in order) and all the others; the first one's log follows.
set -euo pipefail
cd "$(dirname "$0")"
# Debian's Chromium and its driver, for the browser tests (the book, notebook 01 in JupyterLab); where they cannot be
# installed (not root, no apt-get) those tests are skipped and say so. Installed in the background, beside the Python
# packages.
chromium_log=$(mktemp)
if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  { { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } ||
    echo "test.sh: could not install chromium; the browser tests will be skipped"; } > "$chromium_log" 2>&1 &
fi
./run_all.sh --setup-only
# The optional Ray extra, for the smoke test of `python -m mwplib.batch --backend ray` (not in the default install).
stamp=.venv/.mwplib-ray
want=$(sha256sum requirements-ray.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-ray.txt
  echo "$want" > "$stamp"
fi
wait  # for Chromium
grep -h "could not install" "$chromium_log" >&2 || true
rm -f "$chromium_log"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" PYTHONHASHSEED="${PYTHONHASHSEED:-0}"
if [ $# -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
# Half the cores each: two torch processes that each take every core slow each other twentyfold (on 2 cores, a
# BiLSTM step took 0.28 s alone and 5.6 s beside another); with a core each, they only share the machine.
threads=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$threads}" MKL_NUM_THREADS="${MKL_NUM_THREADS:-$threads}"
log=$(mktemp)
.venv/bin/python -m pytest -m renders -p no:cacheprovider > "$log" 2>&1 &
renders=$!
status=0
.venv/bin/python -m pytest -m "not renders" || status=$?
wait "$renders" || status=$?
echo "== the tests marked renders (run beside the others)"
cat "$log"
rm -f "$log"
exit "$status"
