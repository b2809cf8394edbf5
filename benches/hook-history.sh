#!/usr/bin/env bash
# The gate's cost against history length: keel's reference-transaction hook on a linear
# history of N commits (built with git fast-import, fixed dates and identity), with the
# commit-graph git's gc writes.
#
# Usage: benches/hook-history.sh N KEEL_BIN WORKDIR [RUNS]
# Prints, as median milliseconds over RUNS (default 7) runs, each pair run side by side:
#   plumbing   `git branch -f probe HEAD~1` with the hook / with hooks off
#   deep       `git branch -f deepI HEAD~(N/2+I)`: a commit no ref or reflog names yet
#   governed   `git commit` of a change to an unpinned unit of a governed file, with the
#              hook / `keel lint --pending` on that commit (the lint the hook runs)
# Needs git and python3.
set -euo pipefail

if [ "$#" -lt 3 ]; then
  echo "usage: $0 N KEEL_BIN WORKDIR [RUNS]" >&2
  exit 2
fi
n=$1
keel_bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
workdir=$3
runs=${4:-7}

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=$workdir
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@keel.invalid
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@keel.invalid
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'

repo=$workdir/history-$n
rm -rf "$repo"
mkdir -p "$repo"
git -C "$repo" init -q -b main

# The first commit holds app.py and a spec pinning f; each later one edits notes.txt.
python3 - "$n" <<'EOF' | git -C "$repo" fast-import --quiet
import sys
n = int(sys.argv[1])
out = sys.stdout
def blob(mark, text):
    # ASCII only: the length in characters is the length in bytes.
    out.write(f"blob\nmark :{mark}\ndata {len(text)}\n{text}\n")
app = "def f(x):\n    return x\n\n\ndef g():\n    return 0\n"
spec = "---\ncode:\n  - app.py#f\n---\n# app\n"
blob(1, app)
blob(2, spec)
for i in range(n):
    notes = f"note {i}\n"
    out.write(f"commit refs/heads/main\nmark :{100 + i}\n")
    t = 1767225600 + 60 * i
    out.write(f"author Bench <bench@keel.invalid> {t} +0000\n")
    out.write(f"committer Bench <bench@keel.invalid> {t} +0000\n")
    msg = f"commit {i}\n"
    out.write(f"data {len(msg)}\n{msg}")
    if i > 0:
        out.write(f"from :{100 + i - 1}\n")
    else:
        out.write("M 100644 :1 app.py\nM 100644 :2 .spec/app/spec.md\n")
    out.write(f"M 100644 inline notes.txt\ndata {len(notes)}\n{notes}\n")
EOF
git -C "$repo" checkout -q main
git -C "$repo" commit-graph write --reachable
(cd "$repo" && "$keel_bin" hook install >/dev/null)
(cd "$repo" && "$keel_bin" lint >/dev/null) || true

median() { python3 -c 'import sys,statistics; print(f"{statistics.median(map(float, sys.argv[1:])):.1f}")' "$@"; }
# Timed with bash's own clock (no process is started to read it).
ms() { python3 -c "import sys; print(f'{(float(sys.argv[2]) - float(sys.argv[1])) * 1000:.3f}')" "$1" "$2"; }

plumb_hook=() plumb_off=() deep_hook=() commit_hook=() pending=()
for i in $(seq "$runs"); do
  t0=$EPOCHREALTIME; git -C "$repo" branch -f probe HEAD~1; t1=$EPOCHREALTIME
  plumb_hook+=("$(ms "$t0" "$t1")")
  t0=$EPOCHREALTIME; git -C "$repo" -c core.hooksPath=/dev/null branch -f probe HEAD~2; t1=$EPOCHREALTIME
  plumb_off+=("$(ms "$t0" "$t1")")
  # A branch to a commit halfway down the history that no ref or reflog names yet: the
  # hook must find a held commit that reaches it.
  t0=$EPOCHREALTIME; git -C "$repo" branch -f "deep$i" "HEAD~$((n / 2 + i))"; t1=$EPOCHREALTIME
  deep_hook+=("$(ms "$t0" "$t1")")
  sed -i "s/return [0-9]*$/return $i/" "$repo/app.py"
  git -C "$repo" add app.py
  t0=$EPOCHREALTIME; git -C "$repo" commit -q -m "change g $i"; t1=$EPOCHREALTIME
  commit_hook+=("$(ms "$t0" "$t1")")
  t0=$EPOCHREALTIME; (cd "$repo" && "$keel_bin" lint --pending HEAD >/dev/null); t1=$EPOCHREALTIME
  pending+=("$(ms "$t0" "$t1")")
done
echo "commits=$n runs=$runs"
echo "plumbing with hook: $(median "${plumb_hook[@]}") ms; hooks off: $(median "${plumb_off[@]}") ms"
echo "plumbing to a commit halfway down, with hook: $(median "${deep_hook[@]}") ms"
echo "governed commit with hook: $(median "${commit_hook[@]}") ms; keel lint --pending: $(median "${pending[@]}") ms"
