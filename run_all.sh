#!/usr/bin/env bash
# Execute every notebooks/NN_*.ipynb in order, headlessly, with papermill.
#
#   ./run_all.sh [--profile smoke|quick|full] [--only 00 05 ...] [-p NAME=VALUE ...] [--from-records] [--setup-only]
#
# -p overrides a notebook parameter, e.g. -p TRAIN_MISSING=False renders only the runs recorded under results/.
# --from-records renders the committed tables from the committed runs, training nothing (the parameters each
# notebook's committed render used: mwplib/headless.py COMMITTED_RENDERS); e.g. the full book: --profile full.
# Creates .venv (Python 3.11) and installs requirements.txt + mwplib on first use or when the pins change.
# Executed notebooks go to build/notebooks/<profile>/ (ignored); tables to results/tables/<profile>/,
# figures to figures/<profile>/, headline metrics to results/metrics/<profile>/. Then the executed notebooks
# become a static book: build/book/<profile>/html/index.html (python -m mwplib.book rebuilds it alone), and for
# quick and full, reader's copies committed under docs/book/<profile>/ (what GitHub shows; byte-stable, so a
# re-render from the same records changes only results/tables/<profile>/MANIFEST.json).
# Exits non-zero, naming them, if any notebook failed (and builds no book).
set -euo pipefail
cd "$(dirname "$0")"

profile=quick
setup_only=0
from_records=()
only=()
params=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile="$2"; shift 2 ;;
    --profile=*) profile="${1#*=}"; shift ;;
    --only) shift; while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do only+=("$1"); shift; done ;;
    --setup-only) setup_only=1; shift ;;
    --from-records) from_records=(--from-records); shift ;;
    -p|--param) params+=(--param "$2"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

python=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv with $($python --version)"
  "$python" -m venv .venv
fi
stamp=.venv/.mwplib-requirements
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "== installing requirements.txt and mwplib into .venv (first run: a few minutes)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -e .
  echo "$want" > "$stamp"
fi
[ "$setup_only" = 1 ] && exit 0

export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" PYTHONHASHSEED="${PYTHONHASHSEED:-0}"
.venv/bin/python -m mwplib.headless --profile "$profile" ${from_records[@]+"${from_records[@]}"} \
  ${params[@]+"${params[@]}"} ${only[@]+"${only[@]}"}
exec .venv/bin/python -m mwplib.book --profile "$profile" ${only[@]+"${only[@]}"}
