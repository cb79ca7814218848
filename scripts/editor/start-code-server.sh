#!/usr/bin/env bash
# Starts code-server (a real VS Code: web workbench + Node extension host) in the background.
#   start-code-server.sh PORT RUNDIR [code-server args..., e.g. the folder to open]
# Binds 127.0.0.1 only. Writes RUNDIR/cs.pid (the process-group id: code-server runs under setsid) and logs to
# RUNDIR/cs.log; user data and extensions live in RUNDIR/ud and RUNDIR/exts (or $CS_USER_DATA_DIR and
# $CS_EXTENSIONS_DIR). Waits for /healthz.
# Stop it with: kill -- -$(cat RUNDIR/cs.pid)   (the whole group: file watcher, extension host, servers it spawned)
# Workspace trust is disabled (vscode.workspace.isTrusted === true) unless KEEP_WORKSPACE_TRUST=1.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "${EDITOR_ENV:-${VSCODE_TEST_DIR:-$ROOT/.vscode-test}/env.sh}"
PORT=$1; RUNDIR=$2; shift 2
UD=${CS_USER_DATA_DIR:-$RUNDIR/ud}; EXTS=${CS_EXTENSIONS_DIR:-$RUNDIR/exts}
mkdir -p "$UD" "$EXTS"
TRUST=(--disable-workspace-trust); [ -n "${KEEP_WORKSPACE_TRUST:-}" ] && TRUST=()
# setsid makes code-server a session + process-group leader; the inner shell records its own pid (= the pgid)
# itself, because setsid forks (and $! would be wrong) when the caller is already a group leader.
rm -f "$RUNDIR/cs.pid"
setsid bash -c 'echo $$ > "$0"; exec "$@"' "$RUNDIR/cs.pid" code-server --auth none --bind-addr "127.0.0.1:$PORT" \
  --user-data-dir "$UD" --extensions-dir "$EXTS" \
  --disable-telemetry --disable-update-check --disable-getting-started-override "${TRUST[@]}" \
  "$@" > "$RUNDIR/cs.log" 2>&1 < /dev/null &
for _ in $(seq 1 20); do [ -s "$RUNDIR/cs.pid" ] && break; sleep 0.1; done
for _ in $(seq 1 120); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; then
    echo "code-server up on http://127.0.0.1:$PORT (pgid $(cat "$RUNDIR/cs.pid"))"; exit 0
  fi
  kill -0 "$(cat "$RUNDIR/cs.pid")" 2>/dev/null || break
  sleep 0.5
done
echo "code-server did not come up; its log:" >&2; cat "$RUNDIR/cs.log" >&2
kill -- -"$(cat "$RUNDIR/cs.pid")" 2>/dev/null || true
exit 1
