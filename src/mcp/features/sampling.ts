/**
 * Sampling (`sampling/createMessage`): validate, rate-limit per server, pick a model from the
 * server's modelPreferences and policy, then hand over to the injected `sample` callback (which
 * asks the user, runs the model and lets them review). Errors go back to the server as JSON-RPC
 * errors with readable messages; a refusal is code -1, as in the spec's example.
 */
import {
  ProtocolError, ProtocolErrorCode,
  type CreateMessageRequest, type CreateMessageResult, type ModelPreferences,
} from '@modelcontextprotocol/client';
import { specParse } from '../spec';
import type { ClientFeatures, ModelDescriptor, SamplingPolicy } from '../types';
import { messageOf } from '../errors';
import { checkToolUses } from './samplingTools';

/** JSON-RPC code for "the user rejected the request" (VS Code and the spec's example use -1). */
export const USER_REJECTED = -1;
/** JSON-RPC code for "too many sampling requests". */
export const RATE_LIMITED = -32000;
export const DEFAULT_SAMPLING_PER_MINUTE = 10;

function matches(model: ModelDescriptor, needle: string): boolean {
  const n = needle.toLowerCase();
  return [model.id, model.name, model.family].some(v => v !== undefined && v.toLowerCase().includes(n));
}

/**
 * Picks a model: the policy's pinned model; otherwise among the allowed models, the first hint that
 * matches (hints in order, as substrings of id/name/family), then the best weighted score of the
 * cost (lower is better), speed and intelligence priorities; ties keep the given order.
 * Throws an ProtocolError when nothing is allowed.
 */
export function chooseModel(
  prefs: ModelPreferences | undefined,
  models: readonly ModelDescriptor[],
  policy: SamplingPolicy = {},
): ModelDescriptor {
  const allowed = policy.allowedModels?.length
    ? models.filter(m => policy.allowedModels!.some(a => m.id === a || matches(m, a)))
    : [...models];
  if (policy.model) {
    const pinned = allowed.find(m => m.id === policy.model) ?? allowed.find(m => matches(m, policy.model!));
    if (!pinned) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `The pinned sampling model "${policy.model}" is not available`);
    return pinned;
  }
  if (allowed.length === 0) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, models.length === 0
      ? 'No language model is available for sampling'
      : 'None of the available language models is allowed for this server');
  }
  for (const hint of prefs?.hints ?? []) {
    if (!hint.name) continue;
    const hit = allowed.find(m => matches(m, hint.name!));
    if (hit) return hit;
  }
  const wc = prefs?.costPriority ?? 0;
  const ws = prefs?.speedPriority ?? 0;
  const wi = prefs?.intelligencePriority ?? 0;
  if (wc === 0 && ws === 0 && wi === 0) return allowed[0];
  let best = allowed[0];
  let bestScore = -Infinity;
  for (const m of allowed) {
    const score = wc * (1 - (m.cost ?? 0.5)) + ws * (m.speed ?? 0.5) + wi * (m.intelligence ?? 0.5);
    if (score > bestScore) { best = m; bestScore = score; }
  }
  return best;
}

/** A sliding one-minute window per server. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  constructor(private readonly now: () => number = Date.now) {}

  /** Records a request; false when `perMinute` were already made in the last minute. */
  take(key: string, perMinute: number): boolean {
    const t = this.now();
    const list = (this.hits.get(key) ?? []).filter(x => t - x < 60_000);
    if (list.length >= perMinute) { this.hits.set(key, list); return false; }
    list.push(t);
    this.hits.set(key, list);
    return true;
  }

  reset(key?: string): void {
    if (key === undefined) this.hits.clear(); else this.hits.delete(key);
  }
}

/** Handles sampling requests for every server of a host. */
export class SamplingService {
  readonly limiter = new RateLimiter();

  constructor(private readonly features: ClientFeatures) {}

  /** True when sampling can be declared (both `sample` and `listModels` given). */
  get enabled(): boolean {
    return !!(this.features.sample && this.features.listModels);
  }

  async handle(
    server: string,
    policy: SamplingPolicy | undefined,
    raw: CreateMessageRequest['params'],
    signal: AbortSignal,
  ): Promise<CreateMessageResult> {
    if (!this.features.sample || !this.features.listModels) {
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'This client does not offer sampling');
    }
    const parsed = specParse('CreateMessageRequestParams', raw);
    if (!parsed.success) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid sampling request: ${parsed.error.issues.map(i => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`);
    }
    const limit = policy?.maxRequestsPerMinute ?? DEFAULT_SAMPLING_PER_MINUTE;
    if (!this.limiter.take(server, limit)) {
      throw new ProtocolError(RATE_LIMITED, `Sampling rate limit exceeded: server "${server}" may make ${limit} sampling requests per minute`);
    }
    const request = { ...parsed.data } as CreateMessageRequest['params'];
    if (policy?.maxTokens !== undefined && request.maxTokens > policy.maxTokens) request.maxTokens = policy.maxTokens;
    const models = await this.features.listModels();
    const model = chooseModel(request.modelPreferences, models, policy);
    let result: CreateMessageResult;
    try {
      result = await this.features.sample({ server, request, model, signal });
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      const msg = messageOf(err);
      throw new ProtocolError(USER_REJECTED, msg && msg !== 'Error' ? msg : 'User rejected sampling request');
    }
    const toolProblem = checkToolUses(request, result);
    if (toolProblem) throw new ProtocolError(ProtocolErrorCode.InternalError, `The sampling result cannot be sent: ${toolProblem}`);
    const checked = specParse(request.tools?.length ? 'CreateMessageResultWithTools' : 'CreateMessageResult', { ...result, model: result.model || model.id });
    if (!checked.success) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `The sampling result is incomplete: ${checked.error.issues.map(i => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`);
    }
    const out = checked.data as CreateMessageResult;
    if (!out.stopReason) out.stopReason = 'endTurn';
    return out;
  }
}
