// Embeds the server/input JSON schema (src/mcp/config/server-schema.json, generated from schema.ts) into
// package.json `contributes.configuration` as `mcpHost.servers` / `mcpHost.inputs`, so workspace settings
// JSON gives completion and squiggles. Run after the schema changes: `node scripts/sync-schema.mjs`
// (`--check` exits 1 when package.json or package.nls.json is out of date). Touches only those two settings and
// `mcpHost.toolBudget` in package.json, and their keys in package.nls.json.
// Localisation (issue 40): every text of the nested schema (descriptions, enum descriptions, pattern errors …) goes
// into package.json as a `%config.mcpHost.servers.<path>.<field>%` key and its English into package.nls.json, by the
// one mechanism of scripts/l10n/extract-nls.mjs (`moveToNls`, scripts/l10n/manifestStrings.mjs); server-schema.json,
// the mcp.json schema other tools and the CLI read, stays English.
import fs from 'node:fs';
import { moveToNls } from './l10n/manifestStrings.mjs';

const pkgUrl = new URL('../package.json', import.meta.url);
const nlsUrl = new URL('../package.nls.json', import.meta.url);
const schema = JSON.parse(fs.readFileSync(new URL('../src/mcp/config/server-schema.json', import.meta.url), 'utf8'));
const pkgText = fs.readFileSync(pkgUrl, 'utf8');
const nlsText = fs.readFileSync(nlsUrl, 'utf8');
const pkg = JSON.parse(pkgText);
const nls = JSON.parse(nlsText);
const props = pkg.contributes.configuration.properties;

const extra = {
  'mcpHost.servers': { order: 1, scope: 'resource' },
  'mcpHost.inputs': { order: 2, scope: 'resource' },
};
const next = {
  'mcpHost.servers': { ...schema.properties.servers, ...extra['mcpHost.servers'] },
  'mcpHost.inputs': { ...schema.properties.inputs, ...extra['mcpHost.inputs'] },
  // The tool budget (read by src/extension/toolEnablement.ts, parsed by src/mcp/catalogue/modelTools.ts parseToolBudget).
  'mcpHost.toolBudget': {
    type: 'object',
    default: {},
    properties: {
      tools: { type: 'integer', minimum: 1, description: '%config.mcpHost.toolBudget.tools.description%' },
      tokens: { type: 'integer', minimum: 1, description: '%config.mcpHost.toolBudget.tokens.description%' },
    },
    additionalProperties: false,
    // The English of the three descriptions is in package.nls.json (issue 40); package.json keeps the %key%.
    markdownDescription: 'The tool budget of `@mcp` and the gateway into VS Code\'s chat, e.g. `{ "tools": 40, "tokens": 8000 }`. When the tools models may see (after `#mcpHost.disabledTools#`) are more than `tools`, or their definitions more than `tokens` estimated tokens, models get a search tool and an activate tool instead of every tool: they search by words, activate a few (at most 16 at once), and those are offered from the next step on. Under the budget (or with no budget, the default) every tool is sent.',
    scope: 'window',
  },
};
// Keep the human-facing description of package.json when it is richer than the schema's.
for (const k of Object.keys(next)) {
  if (props[k]?.markdownDescription) next[k].markdownDescription = props[k].markdownDescription;
}
Object.assign(props, next);
// The generated settings' texts: their keys are this script's (a changed English replaces the old, a removed text's key goes).
const owned = key => Object.keys(next).some(k => key.startsWith(`config.${k}.`));
moveToNls(pkg, nls, owned);
const files = [[pkgUrl, pkgText, JSON.stringify(pkg, null, 2) + '\n'], [nlsUrl, nlsText, JSON.stringify(nls, null, 2) + '\n']];
const stale = files.filter(([, was, now]) => was !== now).map(([url]) => url.pathname.split('/').pop());
if (process.argv.includes('--check')) {
  if (stale.length) { console.error(`${stale.join(' and ')} out of date with src/mcp/config/server-schema.json: run node scripts/sync-schema.mjs`); process.exit(1); }
  process.exit(0);
}
for (const [url, was, now] of files) if (was !== now) fs.writeFileSync(url, now);
console.log(stale.length ? `${stale.join(', ')}: mcpHost.servers / mcpHost.inputs schema updated` : 'package.json: schema already up to date');
