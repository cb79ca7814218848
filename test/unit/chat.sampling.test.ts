/** Sampling and elicitation helpers of the extension: the per-server queue, grants, the request summary, forms (H18). */
import * as assert from 'node:assert/strict';
import { Grants, KeyedQueue } from '../../src/extension/trust/grants';
import { applyStopSequences } from '../../src/extension/sampling/stopSequences';
import { describeSampling, lastUserText, withLastUserText } from '../../src/extension/sampling/describe';
import { coerce, fieldsOf } from '../../src/extension/elicitation/form';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>(r => { resolve = r; });
  return { promise, resolve };
}

class Memento {
  data = new Map<string, unknown>();
  get<T>(k: string): T | undefined { return this.data.get(k) as T | undefined; }
  async update(k: string, v: unknown): Promise<void> { if (v === undefined) this.data.delete(k); else this.data.set(k, v); }
}

describe('chat: sampling queue and grants', () => {
  it('H18: runs one server\'s requests one after another, other servers concurrently', async () => {
    const q = new KeyedQueue();
    const order: string[] = [];
    const gate = deferred();
    const a1 = q.run('a', async () => { order.push('a1 start'); await gate.promise; order.push('a1 end'); return 1; });
    const a2 = q.run('a', async () => { order.push('a2'); return 2; });
    const b1 = q.run('b', async () => { order.push('b1'); return 3; });
    assert.equal(await b1, 3);
    assert.deepEqual(order, ['a1 start', 'b1']);
    gate.resolve();
    assert.deepEqual(await Promise.all([a1, a2]), [1, 2]);
    assert.deepEqual(order, ['a1 start', 'b1', 'a1 end', 'a2']);
    await new Promise(r => setImmediate(r));
    assert.equal(q.size, 0);
  });

  it('a failed request does not block the ones queued behind it', async () => {
    const q = new KeyedQueue();
    const first = q.run('a', async () => { throw new Error('denied'); });
    const second = q.run('a', async () => 'ok');
    await assert.rejects(first, /denied/);
    assert.equal(await second, 'ok');
  });

  it('a queued request whose signal aborts never runs', async () => {
    const q = new KeyedQueue();
    const gate = deferred();
    const ran: string[] = [];
    const first = q.run('a', async () => { await gate.promise; ran.push('first'); });
    const ac = new AbortController();
    const second = q.run('a', async () => { ran.push('second'); }, ac.signal);
    ac.abort(new Error('server cancelled'));
    await assert.rejects(second, /server cancelled/);
    gate.resolve();
    await first;
    await new Promise(r => setImmediate(r));
    assert.deepEqual(ran, ['first']);
  });

  it('H18: session grants live in memory, always grants in the memento, once and deny leave nothing', async () => {
    const m = new Memento();
    const g = new Grants(m, 'k');
    await g.record('s1', 'once');
    await g.record('s2', 'deny');
    assert.equal(g.standing('s1'), undefined);
    assert.equal(g.standing('s2'), undefined);
    await g.record('s3', 'session');
    await g.record('s4', 'always');
    assert.equal(g.standing('s3'), 'session');
    assert.equal(g.standing('s4'), 'always');
    assert.equal(new Grants(m, 'k').standing('s4'), 'always', 'always survives a new session');
    assert.equal(new Grants(m, 'k').standing('s3'), undefined, 'session does not');
    await g.clear();
    assert.equal(g.standing('s3'), undefined);
    assert.equal(g.standing('s4'), undefined);
  });

  it('applies stop sequences at the earliest match', () => {
    assert.deepEqual(applyStopSequences('one two three', ['three', 'two']), { text: 'one ', stopped: true });
    assert.deepEqual(applyStopSequences('abc', ['x', '']), { text: 'abc', stopped: false });
    assert.deepEqual(applyStopSequences('abc', undefined), { text: 'abc', stopped: false });
  });
});

describe('chat: the sampling request as the user sees it', () => {
  const params = {
    systemPrompt: 'Be brief.',
    messages: [
      { role: 'user' as const, content: { type: 'text' as const, text: 'first' } },
      { role: 'assistant' as const, content: { type: 'text' as const, text: 'reply' } },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'look at this' }, { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' }] },
    ],
    maxTokens: 42, temperature: 0.3, stopSequences: ['END'], includeContext: 'thisServer' as const,
  };
  const model = { id: 'fake-1', name: 'Fake Model 1', vendor: 'fakelm' };

  it('H18: names the server, model, system prompt, every message (images as [image]) and the limits', () => {
    const text = describeSampling('everything', params, model);
    for (const part of ['Server: everything', 'Model: Fake Model 1 (fake-1) from fakelm', 'System prompt: Be brief.',
      'user: first', 'assistant: reply', 'user: look at this [image image/png]', 'Max tokens: 42', 'Temperature: 0.3',
      'Stop sequences: "END"', 'Include context: thisServer (not supported']) {
      assert.ok(text.includes(part), `missing ${part} in\n${text}`);
    }
  });

  it('H18: edits the last user message\'s text and keeps its image', () => {
    assert.equal(lastUserText(params), 'look at this');
    const edited = withLastUserText(params, 'changed');
    assert.deepEqual(edited.messages[2].content, [{ type: 'text', text: 'changed' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }]);
    assert.deepEqual(edited.messages[0], params.messages[0]);
    assert.equal(lastUserText(params), 'look at this', 'the original is untouched');
  });
});

describe('chat: elicitation forms', () => {
  const fields = fieldsOf({
    properties: {
      name: { type: 'string', title: 'Your name', minLength: 2 },
      age: { type: 'integer', minimum: 0 },
      ok: { type: 'boolean' },
      color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }] },
      tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 1 },
      mail: { type: 'string', format: 'email' },
    },
    required: ['name', 'age'],
  });

  it('reads each field kind from the requested schema', () => {
    assert.deepEqual(fields.map(f => [f.name, f.kind, f.required]), [
      ['name', 'string', true], ['age', 'integer', true], ['ok', 'boolean', false], ['color', 'enum', false],
      ['size', 'enum', false], ['tags', 'multi', false], ['mail', 'string', false]]);
    assert.equal(fields[0].label, 'Your name');
    assert.deepEqual(fields[3].options, [{ value: 'r', label: 'Red' }, { value: 'g', label: 'Green' }]);
    assert.deepEqual(fields[4].options, [{ value: 's', label: 'Small' }]);
  });

  it('converts answers to schema values and rejects invalid ones readably', () => {
    const [name, age, ok, color, , tags, mail] = fields;
    assert.deepEqual(coerce(name, ''), { error: 'Your name is required' });
    assert.deepEqual(coerce(name, 'x'), { error: 'At least 2 characters' });
    assert.deepEqual(coerce(age, '4'), { value: 4 });
    assert.deepEqual(coerce(age, '4.5'), { error: 'Enter a whole number' });
    assert.deepEqual(coerce(age, '-1'), { error: 'At least 0' });
    assert.deepEqual(coerce(ok, 'yes'), { value: true });
    assert.deepEqual(coerce(ok, ''), { skip: true });
    assert.deepEqual(coerce(color, 'Green'), { value: 'g' });
    assert.deepEqual(coerce(color, 'blue'), { error: '"blue" is not one of the choices' });
    assert.deepEqual(coerce(tags, ['a']), { value: ['a'] });
    assert.deepEqual(coerce(tags, ['a', 'b']), { error: 'Pick at most 1' });
    assert.deepEqual(coerce(mail, 'nope'), { error: 'Enter an email address' });
  });

  it('SEP-1034: each kind of default becomes the preselected answer, and that answer gives the default back', () => {
    const withDefaults = fieldsOf({
      properties: {
        on: { type: 'boolean', default: false },
        friend: { type: 'string', enum: ['Monica', 'Joey'], default: 'Joey' },
        pet: { type: 'string', enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'], default: 'p2' },
        hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }, { const: 'h3', title: 'Wonder Woman' }], default: 'h3' },
        tools: { type: 'array', items: { type: 'string', enum: ['Guitar', 'Piano', 'Drums'] }, default: ['Piano', 'Drums'] },
        fish: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f3', title: 'Trout' }] }, default: ['f3'] },
        line: { type: 'string', default: 'stormy night' },
        ratio: { type: 'number', default: 2.5 },
        count: { type: 'integer', minimum: 1, maximum: 10, default: 7 },
      },
    });
    const expected: Record<string, unknown> = {
      on: false, friend: 'Joey', pet: 'p2', hero: 'h3', tools: ['Piano', 'Drums'], fish: ['f3'], line: 'stormy night', ratio: 2.5, count: 7,
    };
    for (const f of withDefaults) {
      assert.notEqual(f.initial, undefined, f.name);
      assert.deepEqual(coerce(f, f.initial!), { value: expected[f.name] }, f.name);
    }
    assert.deepEqual(withDefaults.map(f => f.initial), ['false', 'Joey', 'p2', 'h3', ['Piano', 'Drums'], ['f3'], 'stormy night', '2.5', '7']);
  });

  it('SEP-1034: a default the field cannot take is not preselected (not a choice, out of range, wrong type)', () => {
    const bad = fieldsOf({
      properties: {
        friend: { type: 'string', enum: ['Monica'], default: 'Gunther' },
        count: { type: 'integer', minimum: 1, maximum: 10, default: 70 },
        on: { type: 'boolean', default: 'yes' },
        tools: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 1, default: ['a', 'b'] },
        none: { type: 'string' },
      },
    });
    assert.deepEqual(bad.map(f => f.initial), [undefined, undefined, undefined, undefined, undefined]);
  });
});
