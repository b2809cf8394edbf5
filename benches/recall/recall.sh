#!/usr/bin/env bash
# The recall bench: keel's Python call graph against the calls a project's own test suite
# makes at runtime (issue #41's "Prove it": click and flask, goal >= 0.98 of the observed
# caller -> callee pairs present in keel's graph, dispatch edges included).
#
# For each REPO (a clone, a bare mirror or a URL of a src-layout Python project: click,
# flask): clones it into WORKDIR/NAME at its default branch's tip, makes a virtualenv
# WORKDIR/venv-NAME with the project installed editable and its `tests` dependency group
# (pytest included) pinned to the versions of its uv.lock, runs its test suite with
# record_calls.py loaded as a pytest plugin (a sys.setprofile hook recording every
# caller -> callee pair between the functions of src/NAME, written to
# WORKDIR/NAME-calls.json), then runs `recall-bench` on it, which runs the release
# `keel callgraph --format json` in the clone and prints recall, the missing pairs by
# reason and precision on a sample (WORKDIR/NAME-recall.txt holds the report).
#
# Usage: benches/recall/recall.sh WORKDIR REPO... [-- RECALL_BENCH_ARGS...]
#   WORKDIR  an empty or new folder
#   REPO     e.g. https://github.com/pallets/click, or a mirror of it
#   after --, arguments for recall-bench (--sample N, --seed N, --examples N)
# Environment: PYTHON, the interpreter for the virtualenvs (default python3; 3.11+).
# Needs git, cargo and network access to PyPI. Builds keel and the benches (release)
# first. Exit 0 whatever the numbers (a failed step exits non-zero).
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: $0 WORKDIR REPO... [-- RECALL_BENCH_ARGS...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
workdir=$1
shift
repos=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  repos+=("$1")
  shift
done
[ "$#" -gt 0 ] && shift
bench_args=("$@")
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "error: $python is older than 3.11 (record_calls.py reads co_qualname)" >&2
  exit 2
}

mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)

(cd "$root" && cargo build --release --quiet -p keel -p keel-benches --bin keel --bin recall-bench)
target=$(cd "$root" && cargo metadata --format-version 1 --no-deps |
  "$python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
bench="$target/release/recall-bench"

for repo in "${repos[@]}"; do
  name=$(basename "${repo%/}")
  name=${name%.git}
  [ "$name" = repo ] && name=$(basename "$(dirname "${repo%/}")") # .mirror/owner+name/repo
  name=${name##*+}
  clone="$workdir/$name"
  if [ -e "$clone" ]; then
    echo "error: $clone exists; give an empty WORKDIR" >&2
    exit 2
  fi
  started=$SECONDS
  git clone --quiet "$repo" "$clone"
  packages=("$clone"/src/*/__init__.py)
  if [ "${#packages[@]}" -ne 1 ] || [ ! -e "${packages[0]}" ]; then
    echo "error: $clone has not exactly one package under src/" >&2
    exit 2
  fi
  package=src/$(basename "$(dirname "${packages[0]}")")
  echo "== $name at $(git -C "$clone" rev-parse --short HEAD) ($package)"

  venv="$workdir/venv-$name"
  "$python" -m venv "$venv"
  # The `tests` dependency group, pinned to uv.lock (pytest's newest release may break a
  # suite written against the locked one).
  mapfile -t pins < <("$venv/bin/python" - "$clone" <<'PY'
import sys, tomllib
from pathlib import Path

root = Path(sys.argv[1])
project = tomllib.loads((root / "pyproject.toml").read_text())
wanted = project.get("dependency-groups", {}).get("tests", ["pytest"])
locked = {}
lock = root / "uv.lock"
if lock.exists():
    for package in tomllib.loads(lock.read_text()).get("package", []):
        locked[package["name"].lower()] = package.get("version")
for requirement in wanted:
    if not isinstance(requirement, str):
        continue
    name = requirement.split(";")[0].split("[")[0]
    for sep in "<>=!~ ":
        name = name.split(sep)[0]
    version = locked.get(name.lower().replace("_", "-"))
    print(f"{name}=={version}" if version else requirement)
PY
)
  "$venv/bin/pip" install --quiet --disable-pip-version-check -e "$clone" "${pins[@]}"

  record_started=$SECONDS
  status=0
  (cd "$clone" && RECALL_ROOT="$clone" RECALL_PACKAGE="$package" \
    RECALL_OUT="$workdir/$name-calls.json" PYTHONPATH="$here" \
    PYTHONPYCACHEPREFIX="$workdir/pycache" \
    "$venv/bin/python" -m pytest -q -p record_calls -p no:cacheprovider \
    > "$workdir/$name-pytest.txt" 2>&1) || status=$?
  tail -n 1 "$workdir/$name-pytest.txt"
  echo "tests under the profiler: $((SECONDS - record_started)) s (pytest exit $status)"
  [ -s "$workdir/$name-calls.json" ] || {
    echo "error: the test run wrote no $workdir/$name-calls.json" >&2
    exit 1
  }

  "$bench" "$clone" "$workdir/$name-calls.json" "${bench_args[@]}" > "$workdir/$name-recall.txt"
  # The summary: everything before the first list of pairs, and the precision line.
  awk '/^## /{ listing = 1 } !listing || /^precision sample/' "$workdir/$name-recall.txt"
  echo "($name: $((SECONDS - started)) s in all; the full report is $workdir/$name-recall.txt)"
  echo
done
