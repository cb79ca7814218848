// Moves every user-facing string of package.json into package.nls.json (issue 40) and leaves `%key%` in its place,
// the VS Code manifest localisation model. Run it after adding a literal string to package.json:
//   node scripts/l10n/extract-nls.mjs
// It is idempotent (a `%key%` value is left alone) and keeps the English text identical. Not shipped (.vscodeignore
// is an allow-list). test/unit/lint.l10n.test.ts (H492, H670) fails while a user-facing string of package.json is literal.
// Not moved: `modelDescription` and tool input-schema descriptions (read by language models, not people). The nested
// schema of `mcpHost.servers` / `mcpHost.inputs` is moved by scripts/sync-schema.mjs, which writes it from
// src/mcp/config/server-schema.json (that file, shared with the English-only CLI and `mcp.json`, stays English), with
// the same `moveToNls`.
import fs from 'node:fs';
import { USER_FACING_KEYS, moveToNls } from './manifestStrings.mjs';

const pkgUrl = new URL('../../package.json', import.meta.url);
const nlsUrl = new URL('../../package.nls.json', import.meta.url);
const pkg = JSON.parse(fs.readFileSync(pkgUrl, 'utf8'));
const nls = fs.existsSync(nlsUrl) ? JSON.parse(fs.readFileSync(nlsUrl, 'utf8')) : {};
const moved = moveToNls(pkg, nls);
fs.writeFileSync(pkgUrl, JSON.stringify(pkg, null, 2) + '\n');
fs.writeFileSync(nlsUrl, JSON.stringify(nls, null, 2) + '\n');
console.log(`package.nls.json: ${moved} strings moved (${Object.keys(nls).length} in all; fields: ${USER_FACING_KEYS.join(', ')})`);
