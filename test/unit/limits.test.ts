/** The limits table (src/mcp/limits.ts): defaults, the settings that raise them, and MCP_HOST_LIMITS for the CLI. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_LIMITS, LIMIT_SETTING, TIMEOUT_KEYS, TIMEOUT_LIMITS, everyTimeout, limitMessage, parseLimits, readTimeouts, resolveLimits,
  type Limits, type TimeoutKey, type Timeouts,
} from '../../src/mcp/limits';
import { GATEWAY_MAX_MESSAGE_BYTES } from '../../src/mcp/gateway/wire';
import { serverSchema } from '../../src/mcp/config/schema';
import { Connection } from '../../src/mcp/server/connection';
import { withTimeout } from '../../src/cli/commandHost';
import { formatBytes, formatNumber } from '../../src/mcp/logging/humanText';
import type { TimeoutConfig } from '../../src/mcp/types';
import { MESSAGE_CAP_TEXT } from '../support/messageCap';
import { nodeFixture } from '../support/connection';

const ROOT = path.resolve(__dirname, '../../..');

/** A default as docs/SECURITY.md writes it: sizes and counts as limit messages show them (`formatBytes`, `formatNumber(n, 'grouped')`). */
const asWritten = (k: keyof Limits): string => (k.endsWith('Bytes') ? formatBytes(DEFAULT_LIMITS[k]) : formatNumber(DEFAULT_LIMITS[k], 'grouped'));

const VALUE = String.raw`\d+(?:[,.]\d+)*(?: (?:B|KiB|MiB|GiB))?`;

/**
 * What docs/SECURITY.md gets wrong about DEFAULT_LIMITS: the list in **Bounded** ("`key` value", every row), and any
 * other "value (`mcpHost.limits.key`)" or "over the limit of value … (raise it with the setting `mcpHost.limits.key`)".
 */
function securityProblems(doc: string): string[] {
  const bounded = /^- \*\*Bounded\*\*[\s\S]*?(?=^- \*\*)/m.exec(doc)?.[0] ?? '';
  const stated = new Map<string, string>();
  for (const m of bounded.matchAll(new RegExp(`\`(max\\w+)\` (${VALUE})`, 'g'))) stated.set(m[1], m[2]);
  const problems: string[] = [];
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = stated.get(k);
    if (v === undefined) problems.push(`${k}: not stated in **Bounded** (write \`${k}\` ${asWritten(k)})`);
    else if (v !== asWritten(k)) problems.push(`${k}: the doc says ${v}, DEFAULT_LIMITS has ${asWritten(k)}`);
  }
  for (const k of stated.keys()) if (!(k in DEFAULT_LIMITS)) problems.push(`${k}: in **Bounded** but not a limit of DEFAULT_LIMITS`);
  const elsewhere = [
    new RegExp(`(${VALUE}) \\(\`mcpHost\\.limits\\.(\\w+)\`\\)`, 'g'),
    new RegExp(`over the limit of (${VALUE})[^(\\n]*\\(raise it with the setting \`mcpHost\\.limits\\.(\\w+)\`\\)`, 'g'),
  ];
  for (const re of elsewhere) {
    for (const m of doc.matchAll(re)) {
      const k = m[2] as keyof Limits;
      if (!(k in DEFAULT_LIMITS)) problems.push(`mcpHost.limits.${k}: not a limit`);
      else if (m[1] !== asWritten(k)) problems.push(`${k}: "${m[0]}" says ${m[1]}, DEFAULT_LIMITS has ${asWritten(k)}`);
    }
  }
  return problems;
}

describe('limits', () => {
  it('every limit has a user-scope setting in package.json with the same default (a workspace cannot raise it)', () => {
    const props = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).contributes.configuration.properties;
    for (const [k, v] of Object.entries(DEFAULT_LIMITS)) {
      const setting = props[LIMIT_SETTING[k as keyof typeof DEFAULT_LIMITS]];
      assert.ok(setting, `package.json has no ${LIMIT_SETTING[k as keyof typeof DEFAULT_LIMITS]}`);
      assert.equal(setting.default, v, k);
      assert.equal(setting.scope, 'application', k);
    }
  });

  it('H517: the timeout defaults are written once: package.json\'s mcpHost.timeout.* and the server schema\'s timeout take them from TIMEOUT_LIMITS', () => {
    const props = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).contributes.configuration.properties;
    const serverSchema = JSON.parse(fs.readFileSync(path.join(ROOT, 'src/mcp/config/server-schema.json'), 'utf8'));
    const perServer = serverSchema.properties.servers.additionalProperties.properties.timeout.properties;
    for (const k of TIMEOUT_KEYS) {
      const t = TIMEOUT_LIMITS[k];
      const setting = props[t.setting];
      assert.ok(setting, `package.json has no ${t.setting}`);
      assert.equal(setting.default, t.default, `${t.setting}'s default (write ${t.default} in package.json)`);
      assert.equal(setting.minimum, t.minimum, `${t.setting}'s minimum`);
      assert.deepEqual([perServer[k].minimum, perServer[k].maximum, perServer[k].default], [t.minimum, t.maximum, t.default], `server timeout.${k}`);
    }
  });

  it('H665: every TIMEOUT_LIMITS row reaches the schema, package.json, the settings reader, the connection and --timeout (no key named here)', async () => {
    assert.deepEqual(TIMEOUT_KEYS, Object.keys(TIMEOUT_LIMITS), 'TIMEOUT_KEYS is the table\'s keys, in its order');
    const props = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).contributes.configuration.properties;
    const generated = JSON.parse(fs.readFileSync(path.join(ROOT, 'src/mcp/config/server-schema.json'), 'utf8'));
    // package.json holds `%key%`s for the texts (issue 40, H670): read them in English through package.nls.json
    const nls = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const inPackage = JSON.parse(JSON.stringify(props['mcpHost.servers'].additionalProperties.properties.timeout),
      (_k, v: unknown) => typeof v === 'string' ? v.replace(/^%([\w.-]+)%$/, (m, key: string) => nls[key] ?? m) : v);
    const inJson = generated.properties.servers.additionalProperties.properties.timeout;
    type Shown = { markdownDescription: string; properties: Record<string, { minimum: number; maximum: number; default: number; markdownDescription: string }> };
    const schemas: Shown[] = [serverSchema.properties.timeout, inJson, inPackage];
    for (const schema of schemas) {
      assert.deepEqual(Object.keys(schema.properties), [...TIMEOUT_KEYS], 'one timeout property per row, in the table\'s order');
      for (const k of TIMEOUT_KEYS as readonly TimeoutKey[]) {
        const t: (typeof TIMEOUT_LIMITS)[TimeoutKey] = TIMEOUT_LIMITS[k];
        const p: Shown['properties'][string] = schema.properties[k];
        assert.deepEqual([p.minimum, p.maximum, p.default], [t.minimum, t.maximum, t.default], `timeout.${k}`);
        assert.ok(p.markdownDescription.startsWith(t.schemaDescription), `timeout.${k} is described from its row`);
        assert.ok(schema.markdownDescription.includes(`\`${k}\` ${t.schemaSummary}`), `the timeout object names ${k}`);
      }
    }
    // The settings reader (src/extension/settings.ts `timeouts`) is readTimeouts over VS Code's configuration: asked
    // as VS Code answers an unset setting (package.json's default), then a user value for each.
    const asked: string[] = [];
    const unset = readTimeouts((setting, fallback) => { asked.push(setting); return (props[setting]?.default as number | undefined) ?? fallback; });
    assert.deepEqual(asked, TIMEOUT_KEYS.map(k => TIMEOUT_LIMITS[k].setting), 'each row\'s own setting is read');
    for (const k of TIMEOUT_KEYS) assert.ok(props[TIMEOUT_LIMITS[k].setting], `package.json declares ${TIMEOUT_LIMITS[k].setting}`);
    assert.deepEqual(unset, Object.fromEntries(TIMEOUT_KEYS.map(k => [k, TIMEOUT_LIMITS[k].default])));
    const userSet = readTimeouts(setting => 1000 + TIMEOUT_KEYS.findIndex(k => TIMEOUT_LIMITS[k].setting === setting));
    assert.deepEqual(userSet, Object.fromEntries(TIMEOUT_KEYS.map((k, i) => [k, 1000 + i])));
    // The definition's type is exactly the table's keys (schemaType.ts derives it from the generated properties).
    const exact: [Required<TimeoutConfig>, Timeouts] extends [Timeouts, Required<TimeoutConfig>] ? true : false = true;
    assert.ok(exact);
    // The connection's accessor: the definition's own value per key, else the default; a tuning update is read at once.
    const own = Object.fromEntries(TIMEOUT_KEYS.map((k, i) => [k, TIMEOUT_LIMITS[k].minimum + i])) as Timeouts;
    const c = new Connection(nodeFixture('timeouts', 'echo'), { pingIntervalMs: 0 });
    try {
      for (const k of TIMEOUT_KEYS) assert.equal(c.timeout(k), TIMEOUT_LIMITS[k].default, `default ${k}`);
      c.updateDefinition({ ...c.definition, timeout: own });
      for (const k of TIMEOUT_KEYS) assert.equal(c.timeout(k), own[k], `own ${k}`);
      assert.equal(c.state.kind, 'stopped', 'reading timeouts starts nothing');
    } finally { await c.dispose(); }
    // The CLI's --timeout sets every timeout (its help: startup and request); without it the definition is unchanged.
    const def = nodeFixture('cli', 'echo', [], { timeout: own });
    assert.deepEqual(withTimeout(def, 4321).timeout, everyTimeout(4321));
    assert.deepEqual(Object.keys(everyTimeout(4321)), [...TIMEOUT_KEYS]);
    assert.equal(withTimeout(def, undefined), def);
  });

  it('H666: docs/SECURITY.md (Bounded) states every DEFAULT_LIMITS default as the table has it, and a wrong value is found', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/SECURITY.md'), 'utf8');
    assert.deepEqual(securityProblems(doc), [], 'change docs/SECURITY.md **Bounded** with DEFAULT_LIMITS (src/mcp/limits.ts)');
    // The check itself: a copy of the doc with one value changed, and one with a row left out, are both found.
    const line = `\`maxStderrLineBytes\` ${formatBytes(DEFAULT_LIMITS.maxStderrLineBytes)}`;
    assert.ok(doc.includes(line), 'the doc has the list');
    assert.match(securityProblems(doc.replace(line, `\`maxStderrLineBytes\` ${formatBytes(DEFAULT_LIMITS.maxStderrLineBytes * 2)}`)).join('\n'), /maxStderrLineBytes/);
    assert.match(securityProblems(doc.replace(`, ${line}`, '')).join('\n'), /maxStderrLineBytes: not stated/);
  });

  it('H518: the gateway channel\'s message cap is the host\'s default maxMessageBytes, not a copy', () => {
    assert.equal(GATEWAY_MAX_MESSAGE_BYTES, DEFAULT_LIMITS.maxMessageBytes);
  });

  it('resolveLimits keeps positive whole values and ignores the rest', () => {
    const r = resolveLimits({ maxMessageBytes: 1024, maxLogEntryBytes: -1, maxCatalogueItems: 'x', maxSchemaNodes: Infinity });
    assert.equal(r.maxMessageBytes, 1024);
    assert.equal(r.maxLogEntryBytes, DEFAULT_LIMITS.maxLogEntryBytes);
    assert.equal(r.maxCatalogueItems, DEFAULT_LIMITS.maxCatalogueItems);
    assert.equal(r.maxSchemaNodes, DEFAULT_LIMITS.maxSchemaNodes);
  });

  it('parseLimits (MCP_HOST_LIMITS) takes known keys and reports every problem', () => {
    assert.deepEqual(parseLimits('{"maxMessageBytes": 2048}', 'MCP_HOST_LIMITS'), { limits: { maxMessageBytes: 2048 }, problems: [] });
    const bad = parseLimits('{"maxMessageByte": 1, "maxLogEntryBytes": 0, "__proto__": 5}', 'MCP_HOST_LIMITS');
    assert.deepEqual(bad.limits, {});
    assert.equal(bad.problems.length, 3, bad.problems.join('\n'));
    assert.match(bad.problems[0], /`maxMessageByte` is not a limit/);
    assert.match(parseLimits('nope', 'MCP_HOST_LIMITS').problems[0], /MCP_HOST_LIMITS is not JSON/);
    assert.match(parseLimits('[1]', 'MCP_HOST_LIMITS').problems[0], /must be a JSON object/);
  });

  it('the message names the server, the limit and the setting', () => {
    assert.equal(limitMessage('big', DEFAULT_LIMITS.maxMessageBytes, { kind: 'answerTooLarge', request: '7' }),
      `server \`big\` answered request 7 with a message that is too large: over the limit of ${MESSAGE_CAP_TEXT} (raise it with the setting \`mcpHost.limits.maxMessageBytes\`)`);
    assert.match(limitMessage('pages', 10_000, { kind: 'cataloguePages', method: 'tools/list' }), /over the limit of 10,000 catalogue pages/);
  });
});
