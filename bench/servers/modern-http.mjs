// modern-http.mjs — an SDK v2 server (@modelcontextprotocol/server + @modelcontextprotocol/node) speaking the
// stateless 2026-07-28 revision over Streamable HTTP on 127.0.0.1, for the bench's 2026-07-28 HTTP row. Plain
// SDK v2 serving: createMcpHandler (a fresh low-level Server per request, default response mode, 2025-era
// requests answered by its stateless legacy fallback) mounted with toNodeHandler behind the SDK's localhost
// Host/Origin guards, as the SDK's HTTP serving guide shows.
//   node bench/servers/modern-http.mjs [--tools N] [--page P]
// Prints `LISTENING <port>` on stdout once listening (any free port). Tools: `echo { text }` → the same text,
// then N-1 filler tools (`tool_1` …, each with a small input schema of its own) so tools/list is a catalogue; tools/list
// answers P tools per page (0 = one page). `GET /capabilities` answers the client capabilities each client (by its
// clientInfo name) declared in its last tools/list, so a bench can give a bare client the same declaration.
// Exits on SIGTERM/SIGINT or when stdin closes.
import http from 'node:http';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';

function num(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
const toolCount = Math.max(1, num('tools', 1));
const page = num('page', 0);

const tools = [{
  name: 'echo',
  description: 'Returns its `text` argument.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}];
for (let i = 1; i < toolCount; i++) {
  tools.push({
    name: `tool_${i}`,
    description: `Filler tool number ${i}: takes a query and a limit, returns nothing useful.`,
    inputSchema: {
      type: 'object',
      // Each schema differs (a real catalogue's do), so nothing can be compiled once for many tools.
      properties: { query: { type: 'string', description: `What to look for in set ${i}` }, limit: { type: 'integer', minimum: 1, maximum: 100 + i } },
      required: ['query'],
    },
  });
}

/** clientInfo name → the capabilities it declared in its last tools/list. */
const declared = {};

function makeServer() {
  const server = new Server({ name: 'bench-modern-http', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', req => {
    const who = server.getClientVersion()?.name;
    if (who) declared[who] = server.getClientCapabilities() ?? {};
    if (!page) return { tools };
    const start = Number(req.params?.cursor ?? 0) || 0;
    const end = start + page;
    return { tools: tools.slice(start, end), ...(end < tools.length && { nextCursor: String(end) }) };
  });
  server.setRequestHandler('tools/call', req => {
    if (req.params.name !== 'echo') return { content: [{ type: 'text', text: `no tool ${req.params.name}` }], isError: true };
    return { content: [{ type: 'text', text: String(req.params.arguments?.text ?? '') }] };
  });
  return server;
}

const handler = createMcpHandler(makeServer, { onerror: err => process.stderr.write(`modern-http: ${err?.message ?? err}\n`) });
const node = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const httpServer = http.createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  if (req.method === 'GET' && req.url === '/capabilities') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(declared));
    return;
  }
  void node(req, res);
});
httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${httpServer.address().port}\n`);
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  httpServer.closeAllConnections?.();
  httpServer.close();
  await handler.close?.().catch?.(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
