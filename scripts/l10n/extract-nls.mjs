// Moves every user-facing string of package.json into package.nls.json (issue 40) and leaves `%key%` in its place,
// the VS Code manifest localisation model. Run it after adding a literal string to package.json:
//   node scripts/l10n/extract-nls.mjs
// It is idempotent (a `%key%` value is left alone) and keeps the English text identical. Not shipped (.vscodeignore
// is an allow-list). test/unit/lint.l10n.test.ts (H491) fails while a user-facing string of package.json is literal.
// Not moved: `modelDescription` and tool input-schema descriptions (read by language models, not people) and the
// nested schema of `mcpHost.servers` / `mcpHost.inputs` (generated from src/mcp/config/schema.ts, shared with the
// English-only CLI and `mcp.json`; scripts/sync-schema.mjs rewrites it).
import fs from 'node:fs';
import { USER_FACING_KEYS, manifestStrings } from './manifestStrings.mjs';

const pkgUrl = new URL('../../package.json', import.meta.url);
const nlsUrl = new URL('../../package.nls.json', import.meta.url);
const pkg = JSON.parse(fs.readFileSync(pkgUrl, 'utf8'));
const nls = fs.existsSync(nlsUrl) ? JSON.parse(fs.readFileSync(nlsUrl, 'utf8')) : {};
let moved = 0;
for (const { owner, field, key, value } of manifestStrings(pkg)) {
  if (/^%[\w.-]+%$/.test(value)) continue;
  if (nls[key] !== undefined && nls[key] !== value) throw new Error(`package.nls.json already has ${key} with other text`);
  nls[key] = value;
  owner[field] = `%${key}%`;
  moved++;
}
fs.writeFileSync(pkgUrl, JSON.stringify(pkg, null, 2) + '\n');
fs.writeFileSync(nlsUrl, JSON.stringify(nls, null, 2) + '\n');
console.log(`package.nls.json: ${moved} strings moved (${Object.keys(nls).length} in all; fields: ${USER_FACING_KEYS.join(', ')})`);
