/**
 * A bare SDK v2 `Client` over stdio as a `TaskChannel` (the two members a connection gives the task
 * tracker), so tasks.ts is tested against real servers without the host's connection.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { OBJECT_RESULT, type TaskChannel } from '../../src/mcp/tasks/tasks';
import { stopProcessTree } from '../../src/mcp/process/processTree';
import { FAST_STOP } from './connection';

const ANY_PARAMS = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) } };

export interface TaskTestClient {
  client: Client;
  channel: TaskChannel;
  capabilities: Record<string, unknown>;
  protocolVersion: string | undefined;
  elicitations: unknown[];
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
  const channel: TaskChannel = {
    request: (method, params, schema, o) => client.request({ method, params }, (schema ?? OBJECT_RESULT) as typeof OBJECT_RESULT, {
      ...(o?.signal && { signal: o.signal }), ...(o?.timeout && { timeout: o.timeout }), ...(o?.onProgress && { onprogress: o.onProgress }),
    }) as never,
    onNotification: (method, handler) => {
      client.setNotificationHandler(method, { params: ANY_PARAMS }, p => handler(p));
      return { dispose: () => client.removeNotificationHandler(method) };
    },
  };
  return {
    client, channel, elicitations,
    capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    close: async () => {
      const pid = transport.pid ?? undefined;
      await stopProcessTree(pid, () => { void client.close().catch(() => undefined); }, FAST_STOP);
      await client.close().catch(() => undefined);
    },
  };
}
