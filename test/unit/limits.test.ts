/** The limits table (src/mcp/limits.ts): defaults, the settings that raise them, and MCP_HOST_LIMITS for the CLI. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_LIMITS, LIMIT_SETTING, TIMEOUT_LIMITS, limitMessage, parseLimits, resolveLimits } from '../../src/mcp/limits';
import { GATEWAY_MAX_MESSAGE_BYTES } from '../../src/mcp/gateway/wire';
import { MESSAGE_CAP_TEXT } from '../support/messageCap';

const ROOT = path.resolve(__dirname, '../../..');

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
    for (const k of ['startup', 'request'] as const) {
      const t = TIMEOUT_LIMITS[k];
      const setting = props[t.setting];
      assert.ok(setting, `package.json has no ${t.setting}`);
      assert.equal(setting.default, t.default, `${t.setting}'s default (write ${t.default} in package.json)`);
      assert.equal(setting.minimum, t.minimum, `${t.setting}'s minimum`);
      assert.deepEqual([perServer[k].minimum, perServer[k].maximum, perServer[k].default], [t.minimum, t.maximum, t.default], `server timeout.${k}`);
    }
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
