#!/usr/bin/env bash
# flask adoption: keel on a real project adopted three years ago.
#
# Clones flask into WORKDIR, writes nine spec nodes as a team would have at flask 2.2.0
# (on a branch at tag 2.2.0, one commit with fixed author and committer), merges that
# branch into flask's tip (a merge commit with a fixed date), so every node's last version
# is at 2.2.0 and its window is every later commit. Then runs `keel lint` from inside the
# clone (no --repo), as text and as JSON, and prints a summary: findings by code and
# severity, blocking (node, commit) hits, how many of them are cosmetic (layout or
# docstring), dead anchors whose repair names a likely new home, `path-reused` findings
# and hits that share a patch id.
#
# The nodes pin flask's important methods in app.py, scaffold.py, blueprints.py,
# helpers.py, ctx.py, sessions.py, json/__init__.py, cli.py, wrappers.py, testing.py and
# config.py. Since 2.2.0 flask moved app.py, blueprints.py and scaffold.py to sansio/ and
# created a new app.py and blueprints.py (so `path-reused`), moved methods such as
# Flask.add_url_rule to sansio's App, and removed others (Flask.env,
# Flask.before_first_request, RequestContext, JSONEncoder): dead anchors.
#
# Usage: benches/adoption/flask.sh FLASK_REPO KEEL_BIN WORKDIR
#   FLASK_REPO  a flask clone or mirror (needs tag 2.2.0; its HEAD is the tip judged)
#   KEEL_BIN    the keel binary to run
#   WORKDIR     an empty or new folder; the clone is WORKDIR/flask, the outputs
#               WORKDIR/lint.json, WORKDIR/lint.txt and WORKDIR/summary.txt
# Needs git and python3. Exit 0 whatever lint says (its exit code is in the summary).
set -euo pipefail

if [ "$#" -ne 3 ]; then
  echo "usage: $0 FLASK_REPO KEEL_BIN WORKDIR" >&2
  exit 2
fi
flask_repo=$1
keel_bin=$2
workdir=$3

# KEEL_BIN as an absolute path (or a command on PATH): lint runs from inside the clone.
if [[ "$keel_bin" == */* ]]; then
  keel_bin="$(cd "$(dirname "$keel_bin")" && pwd)/$(basename "$keel_bin")"
else
  keel_bin=$(command -v "$keel_bin")
fi
[ -x "$keel_bin" ] || { echo "error: $keel_bin is not executable" >&2; exit 2; }

mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
clone="$workdir/flask"
if [ -e "$clone" ]; then
  echo "error: $clone exists; give an empty WORKDIR" >&2
  exit 2
fi

# One identity and fixed dates, so every run builds the same commits.
export GIT_AUTHOR_NAME="Adoption Bench" GIT_AUTHOR_EMAIL="adoption@keel.invalid"
export GIT_COMMITTER_NAME="Adoption Bench" GIT_COMMITTER_EMAIL="adoption@keel.invalid"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

git clone --quiet "$flask_repo" "$clone"
cd "$clone"
git config user.name "$GIT_AUTHOR_NAME"
git config user.email "$GIT_AUTHOR_EMAIL"
tip_branch=$(git symbolic-ref --short HEAD)
git rev-parse --verify --quiet 2.2.0^{commit} >/dev/null || {
  echo "error: $flask_repo has no tag 2.2.0" >&2
  exit 2
}

git switch --quiet -c keel-specs 2.2.0

node() { # node ID, then the frontmatter's code: entries
  local id=$1
  shift
  mkdir -p ".spec/$id"
  {
    echo "---"
    echo "code:"
    for entry in "$@"; do echo "  - $entry"; done
    echo "---"
    echo "# $id"
    echo
    echo "What flask 2.2.0 promises here; keel reads only the frontmatter."
  } > ".spec/$id/spec.md"
}

node routing \
  "src/flask/scaffold.py#Scaffold.route,Scaffold.add_url_rule,Scaffold.endpoint,Scaffold._method_route" \
  "src/flask/app.py#Flask.add_url_rule,Flask.url_for,Flask.create_url_adapter"
node request-dispatch \
  "src/flask/app.py#Flask.wsgi_app,Flask.full_dispatch_request,Flask.dispatch_request,Flask.finalize_request,Flask.preprocess_request,Flask.process_response" \
  "src/flask/wrappers.py#Request.max_content_length,Request.on_json_loading_failed,Response.max_cookie_size"
node error-handling \
  "src/flask/app.py#Flask.handle_exception,Flask.handle_user_exception,Flask.handle_http_exception,Flask.trap_http_exception,Flask._find_error_handler" \
  "src/flask/scaffold.py#Scaffold.errorhandler,Scaffold.register_error_handler"
node configuration \
  "src/flask/config.py#Config.from_envvar,Config.from_prefixed_env,Config.from_pyfile,Config.from_object,Config.from_file,Config.from_mapping" \
  "src/flask/app.py#Flask.make_config,Flask.env,Flask.debug" \
  "src/flask/helpers.py#get_env,get_debug_flag"
node blueprints \
  "src/flask/blueprints.py#Blueprint.register,Blueprint.add_url_rule,BlueprintSetupState.add_url_rule,Blueprint.before_app_first_request" \
  "src/flask/app.py#Flask.register_blueprint,Flask.before_first_request"
node contexts \
  "src/flask/ctx.py#AppContext.push,AppContext.pop,RequestContext.push,RequestContext.pop,after_this_request,copy_current_request_context" \
  "src/flask/app.py#Flask.app_context,Flask.request_context,Flask.do_teardown_request,Flask.do_teardown_appcontext"
node sessions \
  "src/flask/sessions.py#SecureCookieSessionInterface.open_session,SecureCookieSessionInterface.save_session,SessionInterface.get_cookie_name,SessionInterface.should_set_cookie" \
  "src/flask/app.py#Flask.session_cookie_name"
node responses \
  "src/flask/helpers.py#url_for,redirect,send_file,send_from_directory,make_response,locked_cached_property" \
  "src/flask/json/__init__.py#dumps,loads,jsonify,JSONEncoder,htmlsafe_dumps" \
  "src/flask/app.py#Flask.make_response,Flask.redirect" \
  "src/flask/json/provider.py"
node cli-and-testing \
  "src/flask/cli.py#ScriptInfo.load_app,FlaskGroup.get_command,locate_app,find_best_app,load_dotenv,run_command" \
  "src/flask/testing.py#FlaskClient.open,FlaskClient.session_transaction,EnvironBuilder.__init__" \
  "src/flask/app.py#Flask.test_client,Flask.test_cli_runner,Flask.run"

git add .spec
GIT_AUTHOR_DATE="2022-08-02T10:00:00+0000" GIT_COMMITTER_DATE="2022-08-02T10:00:00+0000" \
  git commit --quiet -m "Spec nodes for flask 2.2.0"
git switch --quiet "$tip_branch"
GIT_AUTHOR_DATE="2026-04-10T10:00:00+0000" GIT_COMMITTER_DATE="2026-04-10T10:00:00+0000" \
  git merge --quiet --no-ff --no-edit -m "Merge the 2.2.0 spec nodes" keel-specs
echo "tip $(git rev-parse HEAD); window: $(git rev-list --count keel-specs..HEAD) commits"

# Lint from inside the clone, no --repo: JSON for the numbers, text for its length.
json_rc=0
"$keel_bin" lint --format json > "$workdir/lint.json" 2> "$workdir/lint.json.stderr" || json_rc=$?
text_rc=0
NO_COLOR=1 "$keel_bin" lint > "$workdir/lint.txt" 2> "$workdir/lint.txt.stderr" || text_rc=$?

python3 - "$workdir/lint.json" "$json_rc" "$text_rc" "$workdir/lint.txt" <<'PY' | tee "$workdir/summary.txt"
import collections, json, sys

path, json_rc, text_rc, text_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
report = json.load(open(path))
findings = report["findings"]
with open(text_path) as text:
    text_lines = sum(1 for _ in text)
print(f"keel lint: exit {json_rc} (json), {text_rc} (text); text output {text_lines} lines")
print(f"summary: {report['summary']}; unverified anchors: {len(report.get('unverified', []))}")

print("findings by code and severity:")
by_code = collections.Counter((f["code"], f["severity"]) for f in findings)
for (code, severity), count in sorted(by_code.items()):
    print(f"  {code:22} {severity:8} {count}")

# Blocking hits: (node, commit) pairs of error anchor-hit findings, with every hit record
# of the pair (one per entry it hit).
pairs = collections.defaultdict(list)
for f in findings:
    if f["severity"] == "error" and f["code"] == "anchor-hit":
        for hit in f["hits"]:
            pairs[(f["node"], hit["commit"])].append(hit)
records = [hit for hits in pairs.values() for hit in hits]
cosmetic_pairs = {k: v for k, v in pairs.items() if all(h.get("cosmetic") for h in v)}
kinds = collections.Counter(
    "docstring" if any(h["cosmetic"] == "docstring" for h in v) else "layout"
    for v in cosmetic_pairs.values()
)
some_cosmetic = sum(1 for v in pairs.values() if any(h.get("cosmetic") for h in v))
print(f"blocking (node, commit) hits: {len(pairs)} from {len({c for _, c in pairs})} commits; "
      f"hit records {len(records)}, conservative {sum(h['conservative'] for h in records)}")
print(f"  cosmetic (every record of the pair): {len(cosmetic_pairs)} "
      f"({100.0 * len(cosmetic_pairs) / max(len(pairs), 1):.1f}%): "
      f"layout {kinds['layout']}, docstring {kinds['docstring']}; "
      f"pairs with at least one cosmetic record: {some_cosmetic}; "
      f"cosmetic records {sum(1 for h in records if h.get('cosmetic'))}")
print("  per node:", dict(sorted(collections.Counter(n for n, _ in pairs).items())))

dead = [f for f in findings if f["code"] == "dead-anchor"]
homes = [f for f in dead
         if "has the same qualified name at" in f["message"] + f["repair"]
         or "did you mean" in f["message"] + f["repair"]]
dead_selectors = [(f, s) for f in dead for s in f["selectors"]]
moved = [(f, s) for f, s in dead_selectors
         if f"{s} has the same qualified name at" in f["message"] + f["repair"]]
print(f"dead anchors: {len(dead)} findings ({len(dead_selectors)} selectors), naming a likely "
      f"new home: {len(homes)} findings; selectors named at a unit of the same qualified name "
      f"elsewhere: {len(moved)}")
for f in dead:
    print(f"  {f['node']}: {f['path']}#{','.join(f['selectors'])}: {f['repair']}")

reused = [f for f in findings if f["code"] == "path-reused"]
print(f"path-reused: {len(reused)} findings, listing {sum(len(f['hits']) for f in reused)} hits "
      f"of the moved file's window commits on the entries' selectors")
for f in reused:
    print(f"  {f['node']}: {f['path']}: {f['message']}")

by_patch = collections.defaultdict(set)
for f in findings:
    for hit in f["hits"]:
        if hit.get("patch_id"):
            by_patch[hit["patch_id"]].add(hit["commit"])
groups = {p: c for p, c in by_patch.items() if len(c) > 1}
print(f"patch ids (every finding's hits): {len(by_patch)}; shared by several commits: "
      f"{len(groups)} groups, {sum(len(c) for c in groups.values())} commits")
blocking = collections.defaultdict(set)
for hit in records:
    if hit.get("patch_id"):
        blocking[hit["patch_id"]].add(hit["commit"])
shared = [c for c in blocking.values() if len(c) > 1]
print(f"  among blocking hits: {len(shared)} groups, {sum(len(c) for c in shared)} commits")
PY
