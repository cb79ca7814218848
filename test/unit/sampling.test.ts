/** Sampling: model choice, rate limit, refusals and result shape (H18, H19). */
import * as assert from 'node:assert/strict';
import { ProtocolError, type CreateMessageRequest, type CreateMessageResult } from '@modelcontextprotocol/client';
import { RATE_LIMITED, RateLimiter, SamplingService, USER_REJECTED, chooseModel } from '../../src/mcp/features/sampling';
import type { ModelDescriptor } from '../../src/mcp/types';

const models: ModelDescriptor[] = [
  { id: 'gpt-4o-mini', name: 'GPT-4o mini', family: 'gpt-4o', cost: 0.1, speed: 0.9, intelligence: 0.5 },
  { id: 'claude-sonnet-4', name: 'Claude Sonnet 4', family: 'claude-sonnet', cost: 0.6, speed: 0.5, intelligence: 0.9 },
  { id: 'claude-haiku-4', name: 'Claude Haiku 4', family: 'claude-haiku', cost: 0.2, speed: 0.95, intelligence: 0.6 },
];

const request = (extra: Partial<CreateMessageRequest['params']> = {}): CreateMessageRequest['params'] => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 100, ...extra,
});

describe('Sampling', () => {
  describe('chooseModel', () => {
    it('H18: hints are substrings, tried in order', () => {
      assert.equal(chooseModel({ hints: [{ name: 'sonnet' }, { name: 'gpt' }] }, models).id, 'claude-sonnet-4');
      assert.equal(chooseModel({ hints: [{ name: 'nothing-like-it' }, { name: 'HAIKU' }] }, models).id, 'claude-haiku-4');
    });

    it('H18: without a matching hint, weighted priorities decide', () => {
      assert.equal(chooseModel({ intelligencePriority: 1 }, models).id, 'claude-sonnet-4');
      assert.equal(chooseModel({ costPriority: 1 }, models).id, 'gpt-4o-mini');
      assert.equal(chooseModel({ speedPriority: 1 }, models).id, 'claude-haiku-4');
      assert.equal(chooseModel({ hints: [{ name: 'zzz' }], speedPriority: 0.2, intelligencePriority: 0.8 }, models).id, 'claude-sonnet-4');
      assert.equal(chooseModel(undefined, models).id, 'gpt-4o-mini', 'no preferences: the first model');
    });

    it('the policy pin wins; the allowlist filters hints and priorities', () => {
      assert.equal(chooseModel({ hints: [{ name: 'sonnet' }] }, models, { model: 'claude-haiku-4' }).id, 'claude-haiku-4');
      assert.equal(chooseModel({ hints: [{ name: 'sonnet' }] }, models, { allowedModels: ['gpt'] }).id, 'gpt-4o-mini');
      assert.throws(() => chooseModel({}, models, { allowedModels: ['llama'] }), /None of the available language models is allowed/);
      assert.throws(() => chooseModel({}, [], {}), /No language model is available/);
      assert.throws(() => chooseModel({}, models, { model: 'missing' }), /pinned sampling model "missing"/);
    });
  });

  describe('SamplingService', () => {
    const ok = (model: string): CreateMessageResult => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model, stopReason: 'endTurn' });

    it('H19: returns role, content, model and stopReason; caps maxTokens by policy', async () => {
      let seenMax = 0;
      const s = new SamplingService({
        listModels: async () => models,
        sample: async ctx => { seenMax = ctx.request.maxTokens; return { role: 'assistant', content: { type: 'text', text: 'x' } } as CreateMessageResult; },
      });
      const r = await s.handle('srv', { maxTokens: 10 }, request({ maxTokens: 500 }), new AbortController().signal);
      assert.equal(r.role, 'assistant');
      assert.equal(r.model, 'gpt-4o-mini', 'model filled in from the chosen one');
      assert.equal(r.stopReason, 'endTurn');
      assert.equal(seenMax, 10);
    });

    it('H18: a refusal becomes JSON-RPC error -1 with the message', async () => {
      const s = new SamplingService({ listModels: async () => models, sample: async () => { throw new Error('User rejected sampling request'); } });
      await assert.rejects(s.handle('srv', undefined, request(), new AbortController().signal),
        (e: unknown) => e instanceof ProtocolError && e.code === USER_REJECTED && /User rejected/.test(e.message));
    });

    it('H18: rate-limits per server (default 10 per minute), other servers unaffected', async () => {
      const s = new SamplingService({ listModels: async () => models, sample: async ctx => ok(ctx.model.id) });
      const sig = new AbortController().signal;
      for (let i = 0; i < 10; i++) await s.handle('busy', undefined, request(), sig);
      await assert.rejects(s.handle('busy', undefined, request(), sig),
        (e: unknown) => e instanceof ProtocolError && e.code === RATE_LIMITED && /10 sampling requests per minute/.test(e.message));
      await s.handle('other', undefined, request(), sig);
      const strict = new SamplingService({ listModels: async () => models, sample: async ctx => ok(ctx.model.id) });
      await strict.handle('x', { maxRequestsPerMinute: 1 }, request(), sig);
      await assert.rejects(strict.handle('x', { maxRequestsPerMinute: 1 }, request(), sig), /rate limit/);
    });

    it('rejects a malformed request with a readable InvalidParams error', async () => {
      const s = new SamplingService({ listModels: async () => models, sample: async ctx => ok(ctx.model.id) });
      await assert.rejects(s.handle('srv', undefined, { messages: 'nope' } as never, new AbortController().signal), /Invalid sampling request: messages/);
    });

    it('the window slides: requests older than a minute no longer count', () => {
      let now = 0;
      const l = new RateLimiter(() => now);
      assert.equal(l.take('a', 2), true);
      assert.equal(l.take('a', 2), true);
      assert.equal(l.take('a', 2), false);
      now = 60_001;
      assert.equal(l.take('a', 2), true);
    });
  });
});
