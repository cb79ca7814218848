/**
 * The suites that run servers in the OS sandbox (issue 39: the check written once): skipped, saying why, on a machine
 * that cannot sandbox (src/mcp/launch/sandboxRuntime.ts sandboxUnavailable), with the sandbox's own state reset after asking.
 */
import { resetSandbox } from '../../src/mcp/launch/sandboxLaunch';
import { sandboxUnavailable } from '../../src/mcp/launch/sandboxRuntime';

/** In a mocha `before`: skips the suite when this machine cannot sandbox (and logs why); `reset` resets the sandbox after asking. */
export async function skipWithoutSandbox(ctx: Mocha.Context, opts: { reset?: boolean } = {}): Promise<void> {
  const why = await sandboxUnavailable();
  if (opts.reset) await resetSandbox();
  if (why) {
    console.log(`      skipped: ${why}`);
    ctx.skip();
  }
}
