/**
 * The editor suite's passes, by name (run by scripts/editor/run-editor-tests.mjs, `MCP_HOST_EDITOR_PASSES=a,b` picks
 * some): one table, from which scripts/test-all.mjs makes its `editor:<pass>` steps, so a new pass is a row here and
 * runs in `npm test` with no other edit.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Passes: the whole suite in a trusted single-folder window, then the cases that need another window: Workspace
// Trust on (Restricted Mode: no workspace server may spawn), a multi-root workspace (folders added live reach
// the servers as roots) and the pseudo-locale qps-ploc (no English string left in our UI). Setting KEEP_WORKSPACE_TRUST, MCP_HOST_EDITOR_OPEN or MCP_HOST_TEST_GREP runs one pass
// as you set it; MCP_HOST_EDITOR_PASSES=trusted,untrusted picks passes by name.
export const PASSES = {
  // every test but the other passes' own (they would fail here: no Restricted Mode, no .code-workspace)
  trusted: { MCP_HOST_TEST_GREP: 'Restricted Mode|multi-root window|Pseudo-locale|key-order window', MCP_HOST_TEST_GREP_INVERT: '1' },
  untrusted: { KEEP_WORKSPACE_TRUST: '1', MCP_HOST_TEST_GREP: 'Extension activation|Restricted Mode' },
  'multi-root': { MCP_HOST_EDITOR_OPEN: 'multi-root.code-workspace', MCP_HOST_TEST_GREP: 'Extension activation|multi-root window' },
  // H641 (issue 41): servers configured before activation, a workspace one nobody allowed and a user one (echo), in a
  // window of their own: only the first settings sync runs before the installation key is read.
  'key-order': {
    MCP_HOST_EDITOR_OPEN: 'key-order', MCP_HOST_TEST_GREP: 'key-order window',
    MCP_HOST_EDITOR_USER_SETTINGS: JSON.stringify({ 'mcpHost.servers': { 'h641-user': { command: process.execPath, args: [path.join(ROOT, 'test/fixtures/servers/echo.mjs')] } } }),
  },
  // The display language qps-ploc with our strings pseudo-translated into this run's copy of the VSIX (issue 40).
  'pseudo-locale': { EXTTEST_LOCALE: 'qps-ploc', MCP_HOST_TEST_GREP: 'Pseudo-locale' },
};
