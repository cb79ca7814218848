/**
 * SEP-2243 x-mcp-header annotations (src/mcp/catalogue/toolHeaders.ts): which tool definitions a 2026-07-28
 * Streamable HTTP client must leave out, and which calls go through the SDK's header mirroring.
 */
import * as assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { excludeInvalidHeaderTools, headerAnnotationProblem, headerMirroredTool } from '../../src/mcp/catalogue/toolHeaders';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('x-mcp-header annotations (SEP-2243)', () => {
  it('accepts string, integer and boolean properties reached through properties, at any depth', () => {
    assert.equal(headerAnnotationProblem(obj({ region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' } })), undefined);
    assert.equal(headerAnnotationProblem(obj({ a: obj({ b: { type: 'boolean', 'x-mcp-header': 'Deep' } }) })), undefined);
    assert.equal(headerAnnotationProblem(obj({ plain: { type: 'string' } })), undefined);
  });

  it('refuses empty, non-token, non-primitive, number-typed, duplicate and unreachable annotations', () => {
    const cases: [unknown, RegExp][] = [
      [obj({ v: { type: 'string', 'x-mcp-header': '' } }), /non-empty string/],
      [obj({ v: { type: 'string', 'x-mcp-header': 'My Region' } }), /not a valid header name token/],
      [obj({ v: { type: 'string', 'x-mcp-header': 'Région' } }), /not a valid header name token/],
      [obj({ v: { type: 'number', 'x-mcp-header': 'Score' } }), /here: number/],
      [obj({ v: { type: 'object', 'x-mcp-header': 'Data' } }), /here: object/],
      [obj({ a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }), /declared twice/],
      [obj({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }), /reached through `properties`/],
      [obj({}, { anyOf: [obj({ v: { type: 'string', 'x-mcp-header': 'V' } })] }), /reached through `properties`/],
      [{ type: 'object', 'x-mcp-header': 'Root' }, /reached through `properties`/],
    ];
    for (const [schema, re] of cases) assert.match(headerAnnotationProblem(schema) ?? '(none)', re, JSON.stringify(schema));
  });

  it('leaves an invalid tool out of the list with a warning naming it; valid ones stay', () => {
    const tools = [
      { name: 'ok', inputSchema: obj({ r: { type: 'string', 'x-mcp-header': 'Region' } }) },
      { name: 'bad', inputSchema: obj({ r: { type: 'number', 'x-mcp-header': 'Region' } }) },
    ] as Tool[];
    const validators = new Map<string, { invalid?: string; malformed?: boolean }>([['ok', {}], ['bad', {}]]);
    const warnings: string[] = [];
    excludeInvalidHeaderTools(tools, validators, w => warnings.push(w));
    assert.equal(validators.get('ok')?.malformed, undefined);
    assert.equal(validators.get('bad')?.malformed, true);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /tool `bad` has an invalid x-mcp-header annotation .*left out of the tool list/);
  });

  it('mirrors headers only for an annotated tool on a 2026-07-28 Streamable HTTP session', () => {
    const tools = [{ name: 'h', inputSchema: obj({ r: { type: 'string', 'x-mcp-header': 'Region' } }) }, { name: 'p', inputSchema: obj({}) }] as Tool[];
    assert.equal(headerMirroredTool(tools, 'h', { era: 'modern', kind: 'streamableHttp' })?.name, 'h');
    assert.equal(headerMirroredTool(tools, 'p', { era: 'modern', kind: 'streamableHttp' }), undefined);
    assert.equal(headerMirroredTool(tools, 'h', { era: 'legacy', kind: 'streamableHttp' }), undefined);
    assert.equal(headerMirroredTool(tools, 'h', { era: 'modern', kind: 'stdio' }), undefined);
  });
});
