/** The real CliRuntime: configuration files through the core's config module, McpHost for servers. */
import { resolveCommand } from '../mcp/process/resolveCommand';
import { UsageError } from './args';
import type { CliRuntime } from './commands';

export function createRuntime(): CliRuntime {
  return {
    loadConfig: async () => { throw new UsageError('configuration loading is not wired yet'); },
    createHost: () => { throw new UsageError('the host is not wired yet'); },
    resolveCommand: async def => {
      if (def.type !== 'stdio') throw new Error('not a stdio server');
      return resolveCommand(def.command, { cwd: def.cwd, env: process.env });
    },
    out: text => { process.stdout.write(text.endsWith('\n') ? text : `${text}\n`); },
    err: text => { process.stderr.write(text.endsWith('\n') ? text : `${text}\n`); },
  };
}
