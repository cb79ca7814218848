#!/usr/bin/env bash
# Stand-in "VS Code executable" for @vscode/test-electron, so a standard call works unchanged here:
#   runTests({ vscodeExecutablePath: '<root>/scripts/editor/code-wrapper.sh', extensionDevelopmentPath,
#              extensionTestsPath, launchArgs: [folder, '--extensions-dir=…', '--user-data-dir=…'], extensionTestsEnv })
# It starts a fresh code-server on 127.0.0.1 (free port, smoke-test driver on), installs the VSIX files named in
# $EXTRA_VSIX (space separated), runs the suite in headless Chromium (run-extension-tests.mjs), and exits with the
# suite's result. Desktop/Electron flags are ignored. It stops everything it started (code-server's process group,
# the browser driver) on exit and on INT/TERM/HUP.
# Env: EXTTEST_RUN_DIR (logs etc.; default a new temp folder), EXTTEST_TIMEOUT (s, default 600), EXTTEST_SCREENSHOT (png written at the end), EXTTEST_VERBOSE=1,
# KEEP_WORKSPACE_TRUST=1 (test the untrusted path), EXTTEST_LOCALE (display language, e.g. qps-ploc). Variables named MCP_HOST_*, FAKE_LM_* are passed to the
# extension host explicitly (it also inherits code-server's environment).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export EDITOR_ENV=${EDITOR_ENV:-${VSCODE_TEST_DIR:-$ROOT/.vscode-test}/env.sh}
. "$EDITOR_ENV"
DEV= TESTS= FOLDER= EXTS= UD=
for a in "$@"; do case "$a" in
  --extensionDevelopmentPath=*) DEV=${a#*=} ;;
  --extensionTestsPath=*) TESTS=${a#*=} ;;
  --extensions-dir=*) EXTS=${a#*=} ;;
  --user-data-dir=*) UD=${a#*=} ;;
  -*) ;;
  *) FOLDER=$a ;;
esac; done
[ -n "$DEV" ] && [ -n "$TESTS" ] || { echo "code-wrapper: need --extensionDevelopmentPath= and --extensionTestsPath=" >&2; exit 64; }
if [ -d "$TESTS" ]; then TESTS=$TESTS/index.js; elif [ ! -f "$TESTS" ] && [ -f "$TESTS.js" ]; then TESTS=$TESTS.js; fi
[ -f "$TESTS" ] || { echo "code-wrapper: no test entry at $TESTS" >&2; exit 64; }
DEV=$(cd "$DEV" && pwd); TESTS=$(cd "$(dirname "$TESTS")" && pwd)/$(basename "$TESTS")
RUN=${EXTTEST_RUN_DIR:-$(mktemp -d)}; mkdir -p "$RUN"
export CS_EXTENSIONS_DIR=${EXTS:-$RUN/exts} CS_USER_DATA_DIR=${UD:-$RUN/ud}
FOLDER=${FOLDER:-$RUN/workspace}   # a folder, or a .code-workspace file (opened as a multi-root workspace)
if [ -f "$FOLDER" ]; then FOLDER=$(cd "$(dirname "$FOLDER")" && pwd)/$(basename "$FOLDER"); else mkdir -p "$FOLDER"; FOLDER=$(cd "$FOLDER" && pwd); fi

RUNNER=
cleanup() {
  local rc=$? pg
  trap '' INT TERM HUP   # a second Ctrl-C must not cut the clean-up short
  if [ -n "$RUNNER" ]; then kill -TERM "$RUNNER" 2>/dev/null; wait "$RUNNER" 2>/dev/null; fi
  if [ -s "$RUN/cs.pid" ]; then
    pg=$(cat "$RUN/cs.pid")
    kill -TERM -- "-$pg" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 -- "-$pg" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pg" 2>/dev/null
  fi
  # keep the run folder (logs, screenshot) only when the run failed
  if [ "$rc" = 0 ] && [ -z "${EXTTEST_KEEP_RUN:-}" ]; then rm -rf "$RUN"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

for v in ${EXTRA_VSIX:-}; do
  code-server --extensions-dir "$CS_EXTENSIONS_DIR" --user-data-dir "$CS_USER_DATA_DIR" --install-extension "$v" >"$RUN/install.log" 2>&1 \
    || { echo "code-wrapper: installing $v failed:" >&2; cat "$RUN/install.log" >&2; exit 65; }
done
# EXTTEST_LOCALE: the display language (code-server --locale; the pseudo-locale pass of run-editor-tests.mjs)
LOCALE=(); [ -n "${EXTTEST_LOCALE:-}" ] && LOCALE=(--locale "$EXTTEST_LOCALE")
# With a display language but no language-pack extension, the server would first try to install one from the
# extension gallery (over the network) before it lists the extension under test; no gallery in that pass.
[ -n "${EXTTEST_LOCALE:-}" ] && export EXTENSIONS_GALLERY='{}'
# a free port can be taken by someone else between probing and binding: try a few
for attempt in 1 2 3; do
  PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  "$HERE/start-code-server.sh" "$PORT" "$RUN" --vscode-option enable-smoke-test-driver "${LOCALE[@]}" "$FOLDER" >/dev/null 2>"$RUN/start.err" && break
  [ "$attempt" = 3 ] && { cat "$RUN/start.err" >&2; exit 66; }
done

ENV_JSON=$(node -e 'const e={};for(const[k,v]of Object.entries(process.env))if(/^(MCP_HOST_|FAKE_LM_)/.test(k))e[k]=v;console.log(JSON.stringify(e))')
VERBOSE=(); [ -n "${EXTTEST_VERBOSE:-}" ] && VERBOSE=(--verbose)
node "$HERE/run-extension-tests.mjs" --base "http://127.0.0.1:$PORT" --folder "$FOLDER" --ext "$DEV" --tests "$TESTS" \
  --env "$ENV_JSON" --out "$RUN/mocha.log" --timeout "${EXTTEST_TIMEOUT:-600}" \
  --screenshot "${EXTTEST_SCREENSHOT:-$RUN/end.png}" "${VERBOSE[@]}" &
RUNNER=$!
wait "$RUNNER"; RC=$?
RUNNER=
if [ "$RC" != 0 ]; then echo "code-wrapper: suite exit code $RC; code-server log: $RUN/cs.log" >&2; fi
exit "$RC"
