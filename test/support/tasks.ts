/**
 * A bare SDK v2 `Client` over stdio with the host's request coordinator on its transport (as a session has
 * it: rawRequests.ts, which also keeps a task's polling hints within the host's bounds), and a 2025-11-25
 * task tracker on it made as a connection makes one (an ext-tasks session, extTaskSession.ts), so the tracker is
 * tested against real servers without the host's connection.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LOOSE_RESULT } from '../../src/mcp/spec';
import { TASK_BOUNDS } from '../../src/mcp/tasks/tasks';
import { createTaskSession } from '../../src/mcp/tasks/extTaskSession';
import { ExtTaskTracker } from '../../src/mcp/tasks/extTaskTracker';
import { RawRequests } from '../../src/mcp/server/rawRequests';
import type { Redactor } from '../../src/mcp/logging/redact';
import { stopProcessTree } from '../../src/mcp/process/processTree';
import { FAST_STOP } from './connection';

export interface TaskTestClient {
  client: Client;
  raw: RawRequests;
  capabilities: Record<string, unknown>;
  protocolVersion: string | undefined;
  elicitations: unknown[];
  /** A tracker for this client's 2025-11-25 tasks, as a connection makes it. */
  tracker(o: { server: string; redactor: Redactor; maxTasks: number; log?: (level: 'info' | 'warning' | 'debug', message: string) => void }): Promise<ExtTaskTracker>;
  close(): Promise<void>;
}

/** Connects to a stdio server; `elicit` answers `elicitation/create` (declared only when given). */
export async function connectTasks(command: string, args: string[], elicit?: (params: unknown) => Record<string, unknown>): Promise<TaskTestClient> {
  const client = new Client({ name: 'tasks-test', version: '1.0.0' }, { capabilities: { tasks: {}, ...(elicit ? { elicitation: {} } : {}) } });
  const elicitations: unknown[] = [];
  if (elicit) {
    client.setRequestHandler('elicitation/create', async req => {
      elicitations.push(req.params);
      return elicit(req.params) as never;
    });
  }
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  await client.connect(transport);
  const raw = new RawRequests(transport, { server: () => 'test', requestTimeout: () => 10_000 });
  raw.install();
  return {
    client, raw, elicitations,
    capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    tracker: async o => new ExtTaskTracker({
      ...o,
      session: await createTaskSession(client, { endpointId: `test:${o.server}`, onInputRequest: async () => ({ action: 'decline' }), onError: () => undefined }),
      requestTimeout: () => 10_000,
      progress: (token, h) => raw.onProgress(token, h),
      legacyResultWait: (taskId, signal) => client.request({ method: 'tasks/result', params: { taskId } }, LOOSE_RESULT, { signal, timeout: TASK_BOUNDS.resultWaitMs }),
    }),
    close: async () => {
      const pid = transport.pid ?? undefined;
      await stopProcessTree(pid, () => { void client.close().catch(() => undefined); }, FAST_STOP);
      await client.close().catch(() => undefined);
    },
  };
}
