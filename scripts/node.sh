#!/usr/bin/env bash
# The Node the build and every suite run on: one that satisfies package.json's engines.node (set to what the
# dependencies declare, issue 38). The one place that installs Node 24, from the npm registry's `node` package, into
# .vscode-test/node24 (the editor harness needs that Node anyway: code-server's postinstall refuses other majors).
#   bash scripts/node.sh pick      prints the bin folder of a Node that satisfies engines.node: the system one when it
#                                  is new enough, else Node 24 (installed the first time); callers put it first on PATH
#   bash scripts/node.sh install   installs Node 24 (once) and prints its bin folder
# Or sourced (scripts/editor/setup.sh): mcp_host_clean_npm_env, mcp_host_node24, mcp_host_pick_node.
# Progress and errors go to stderr, the folder alone to stdout. VSCODE_TEST_DIR moves .vscode-test.
MCP_HOST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MCP_HOST_WORK=${VSCODE_TEST_DIR:-$MCP_HOST_ROOT/.vscode-test}
MCP_HOST_NODE_MAJOR=24

# Under `npm test`/`npm start` the outer npm exports its own settings; an install of ours must not inherit them (the
# prefixes would send it into the repository; code-server's postinstall reads the Node version from the user agent).
mcp_host_clean_npm_env() {
  local v
  for v in $(compgen -e | grep -E '^npm_(config_(user_agent|local_prefix|global_prefix|prefix|node_gyp)$|lifecycle_|package_)' || true); do
    unset "$v"
  done
}

# Exit status 0 when the Node binary $1 satisfies package.json's engines.node (a ">=X.Y[.Z]" range), 1 when it is
# older, 2 when engines.node has another form (say so: this check reads only that form).
mcp_host_node_ok() {
  "$1" -e '
    const want = require(process.argv[1]).engines.node;
    const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(want);
    if (!m) { console.error(`scripts/node.sh: package.json engines.node is "${want}"; it reads only ">=X.Y[.Z]"`); process.exit(2); }
    const have = process.versions.node.split(".").map(Number);
    const need = [m[1], m[2], m[3] || "0"].map(Number);
    for (let i = 0; i < 3; i++) if (have[i] !== need[i]) process.exit(have[i] > need[i] ? 0 : 1);' "$MCP_HOST_ROOT/package.json" >/dev/null
}

# Installs Node 24 into $MCP_HOST_WORK/node24 once (downloads kept in $MCP_HOST_WORK/npm-cache); prints its bin folder.
mcp_host_node24() {
  local dir=$MCP_HOST_WORK/node24
  if [ ! -x "$dir/node_modules/node/bin/node" ]; then
    echo "[node] installing Node $MCP_HOST_NODE_MAJOR from the npm registry into $dir (first time only)" >&2
    mkdir -p "$dir"
    (mcp_host_clean_npm_env && cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } \
      && npm install --no-audit --no-fund --loglevel=error --cache "$MCP_HOST_WORK/npm-cache" "node@$MCP_HOST_NODE_MAJOR" >/dev/null) \
      || { echo "[node] could not install Node $MCP_HOST_NODE_MAJOR into $dir (npm install node@$MCP_HOST_NODE_MAJOR failed)" >&2; return 1; }
  fi
  echo "$dir/node_modules/node/bin"
}

# Prints the bin folder of a Node that satisfies engines.node: the system one, else Node 24.
mcp_host_pick_node() {
  local sys rc=1
  sys=$(command -v node || true)
  if [ -n "$sys" ]; then
    mcp_host_node_ok "$sys" && rc=0 || rc=$?
    [ "$rc" = 2 ] && return 2
  fi
  if [ "$rc" = 0 ]; then
    dirname "$sys"
    return 0
  fi
  local have=none want=
  [ -n "$sys" ] && have="$sys v$("$sys" -p process.versions.node)" && want=" ($("$sys" -p "require(process.argv[1]).engines.node" "$MCP_HOST_ROOT/package.json"))"
  echo "[node] the system Node ($have) is older than package.json's engines.node$want: using Node $MCP_HOST_NODE_MAJOR from $MCP_HOST_WORK/node24" >&2
  mcp_host_node24
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in
    pick) mcp_host_pick_node ;;
    install) mcp_host_node24 ;;
    *) echo "usage: bash scripts/node.sh pick|install" >&2; exit 2 ;;
  esac
fi
