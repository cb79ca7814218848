#!/usr/bin/env node
// The client command scripts/conformance.mjs gives the conformance suite: runs `node <cli> conformance
// <server-url>` with this process's stdio and environment, and records how it ended in
// $MCP_HOST_CONFORMANCE_EXITS/<scenario>.json ({ code, signal, protocolVersion }: the spec version the suite
// ran the scenario at, from MCP_CONFORMANCE_PROTOCOL_VERSION, which 0.2 sets). The suite keeps the client's exit status
// to itself (and reports a client killed by a signal as exit code 0), so the script could not grade it.
//
//   node scripts/conformance-client.mjs <path to dist/cli.js> <server-url>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [cli, ...args] = process.argv.slice(2);
const dir = process.env.MCP_HOST_CONFORMANCE_EXITS;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';

function record(exit) {
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  fs.writeFileSync(path.join(dir, `${encodeURIComponent(scenario)}.json`), JSON.stringify({ scenario, protocolVersion, ...exit }));
}

const child = spawn(process.execPath, [cli, 'conformance', ...args], { stdio: 'inherit' });
// The suite stops a client that outlives its timeout with SIGTERM: pass it on, so the client is
// recorded as killed rather than left running.
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { child.kill(sig); });
child.on('error', err => {
  console.error(`conformance-client: could not start the client: ${err.message}`);
  record({ code: null, signal: null, error: err.message });
  process.exit(1);
});
child.on('close', (code, signal) => {
  record({ code, signal });
  process.exit(code ?? 1);
});
