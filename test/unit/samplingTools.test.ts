import * as assert from 'node:assert/strict';
import { checkToolUses, describeOfferedTools, offeredTools } from '../../src/mcp/features/samplingTools';
import { describeSampling } from '../../src/extension/sampling/describe';

const weather = { name: 'get.weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };

describe('sampling with tools (editor-free part)', () => {
  it('offers the request\'s tools under model-safe unique names, with the way back; toolChoice sets the mode', () => {
    const o = offeredTools({ tools: [weather, { name: 'get weather', inputSchema: { type: 'object' } }, { name: 'x'.repeat(80) }], toolChoice: { mode: 'required' } })!;
    assert.deepEqual(o.tools.map(t => t.name), ['get_weather', 'get_weather_2', 'x'.repeat(64)]);
    assert.equal(o.serverName.get('get_weather'), 'get.weather');
    assert.equal(o.serverName.get('get_weather_2'), 'get weather');
    assert.deepEqual(o.tools[0].inputSchema, weather.inputSchema);
    assert.equal(o.tools[2].description, 'x'.repeat(80), 'the name stands in for a missing description');
    assert.equal(o.mode, 'required');
    assert.equal(offeredTools({ tools: [weather] })!.mode, 'auto');
    assert.equal(offeredTools({ tools: [weather], toolChoice: { mode: 'none' } }), undefined, 'toolChoice none offers nothing');
    assert.equal(offeredTools({}), undefined);
  });

  it('a tool call goes back only if that tool was offered', () => {
    const req = { tools: [weather] };
    assert.equal(checkToolUses(req, { content: { type: 'text', text: 'hi' } }), undefined);
    assert.equal(checkToolUses(req, { content: [{ type: 'tool_use', id: '1', name: 'get.weather', input: {} }] }), undefined);
    assert.match(checkToolUses(req, { content: [{ type: 'tool_use', id: '1', name: 'rm_rf', input: {} }] }) ?? '', /"rm_rf", which the request did not offer/);
    assert.match(checkToolUses({}, { content: [{ type: 'tool_use', id: '1', name: 'get.weather', input: {} }] }) ?? '', /offered none/);
    assert.match(checkToolUses({ ...req, toolChoice: { mode: 'none' } }, { content: [{ type: 'tool_use', id: '1', name: 'get.weather', input: {} }] }) ?? '', /offered none/);
  });

  it('the confirmation shows the tools offered, tool calls and tool results', () => {
    assert.equal(describeOfferedTools({}), undefined);
    const text = describeSampling('srv', {
      messages: [
        { role: 'user', content: { type: 'text', text: 'weather?' } },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'get.weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: 'sunny' }] }] },
      ],
      maxTokens: 10, tools: [weather], toolChoice: { mode: 'auto' },
    } as never, { id: 'm', name: 'm' });
    for (const part of ['assistant: [tool call get.weather {"city":"Paris"}]', 'user: [tool result: sunny]',
      'Tools offered to the model: get.weather (tool choice: auto; the model\'s tool calls go back to the server, the host runs none)']) {
      assert.ok(text.includes(part), `missing ${part} in\n${text}`);
    }
  });
});
