#!/usr/bin/env bash
# `npm start`: build the VSIX and open a real VS Code (code-server, in your browser) with MCP Host installed and the
# sample/ workspace open. Installs what it needs first (a Node of engines.node via scripts/node.sh; npm ci when
# node_modules is stale; code-server and Chromium via setup.sh, side by side with npm ci and the build, its downloads
# cached in .vscode-test/). Binds 127.0.0.1 on $PORT or a free port, prints the URL, runs until Ctrl-C, then stops
# code-server's whole process group (and the MCP servers it started).
#   PORT=8080 npm start        FOLDER=/some/dir npm start        KEEP_WORKSPACE_TRUST=1 npm start
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
WORK=${VSCODE_TEST_DIR:-$ROOT/.vscode-test}
export EDITOR_ENV=$WORK/env.sh

T0=$(date +%s)
# The build, npm ci and the editor run on a Node of engines.node: the system one, or Node 24 installed the first time
# into .vscode-test/node24 (the one the editor's set-up uses too).
NODE_BIN=$(bash scripts/node.sh pick)
export PATH=$NODE_BIN:$PATH
mkdir -p "$WORK"
# The editor's set-up (the first time: Debian packages and code-server, whose native modules compile for a few minutes
# on 2 cores; then about a second) runs beside npm ci and the build; its progress lines are shown as they come.
echo "[start] setting up the editor (.vscode-test/) and building the VSIX side by side, on node $(node -v)…"
bash scripts/editor/setup.sh > "$WORK/setup.log" 2>&1 &
SETUP=$!
tail -n +1 --pid=$SETUP -f "$WORK/setup.log" 2>/dev/null | grep --line-buffered '^\[editor-setup' &
node scripts/ensure-deps.mjs || { kill "$SETUP" 2>/dev/null; exit 1; }
npm run --silent package > "$WORK/package.log" 2>&1 || { cat "$WORK/package.log"; kill "$SETUP" 2>/dev/null; exit 1; }
echo "[start +$(( $(date +%s) - T0 ))s] built dist/mcp-host.vsix ($(( $(stat -c %s dist/mcp-host.vsix) / 1024 )) KiB)"
# While the set-up still works: a line whenever its log has been quiet for 30 s (its own lines come between).
if kill -0 "$SETUP" 2>/dev/null; then
  echo "[start +$(( $(date +%s) - T0 ))s] waiting for the editor set-up to finish (log: $WORK/setup.log)"
  (while sleep 30; do
    [ $(( $(date +%s) - $(stat -c %Y "$WORK/setup.log") )) -lt 30 ] \
      || echo "[start +$(( $(date +%s) - T0 ))s] still setting up the editor; its log's last line: $(tail -1 "$WORK/setup.log" | cut -c1-100)"
  done) & TICK=$!
fi
SETUP_RC=0
wait "$SETUP" || SETUP_RC=$?
if [ -n "${TICK:-}" ]; then kill "$TICK" 2>/dev/null || true; fi
[ "$SETUP_RC" = 0 ] || { echo "[start] the editor set-up failed; its log, $WORK/setup.log, ends:"; tail -30 "$WORK/setup.log"; exit 1; }
. "$EDITOR_ENV"

mkdir -p "$WORK/vsix"
(cd test/fixtures/fake-lm && "$ROOT/node_modules/.bin/vsce" package --no-dependencies --out "$WORK/vsix/fake-lm.vsix" >/dev/null)

RUN=$WORK/open   # kept between runs: your editor state and layout survive a restart
mkdir -p "$RUN/ud/User"
# first start only: no Welcome page over the sample, no offer to open the repository it sits in (your own later changes
# to these settings are kept),
# and no automatic forwarding of the ports the servers open (code-server would announce each one)
[ -f "$RUN/ud/User/settings.json" ] || echo '{ "workbench.startupEditor": "none", "git.openRepositoryInParentFolders": "never", "remote.autoForwardPorts": false }' > "$RUN/ud/User/settings.json"
for v in "$ROOT/dist/mcp-host.vsix" "$WORK/vsix/fake-lm.vsix"; do
  code-server --extensions-dir "$RUN/exts" --user-data-dir "$RUN/ud" --install-extension "$v" --force >/dev/null
done

FOLDER=$(cd "${FOLDER:-$ROOT/sample}" && pwd)
PORT=${PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
stop() {
  trap '' INT TERM HUP   # a second Ctrl-C must not cut the clean-up short
  trap - EXIT
  if [ -s "$RUN/cs.pid" ]; then
    local pg; pg=$(cat "$RUN/cs.pid")
    kill -TERM -- "-$pg" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$pg" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pg" 2>/dev/null || true
    rm -f "$RUN/cs.pid"
    echo "code-server stopped."
  fi
}
trap stop EXIT
trap 'exit 130' INT TERM HUP
"$HERE/start-code-server.sh" "$PORT" "$RUN" "$FOLDER" >/dev/null

cat <<MSG

  MCP Host is running in VS Code (code-server $(code-server --version 2>/dev/null | grep -m1 -oE '^[0-9.]+')) at

      http://127.0.0.1:$PORT/?folder=$FOLDER

  Workspace: $FOLDER   (servers: see .vscode/settings.json; open the MCP Host view in the activity bar)
  Log: $RUN/cs.log
  Press Ctrl-C to stop.

MSG
pg=$(cat "$RUN/cs.pid")
while kill -0 -- "-$pg" 2>/dev/null; do sleep 1; done
echo "code-server exited; see $RUN/cs.log" >&2
exit 1
