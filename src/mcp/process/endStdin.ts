/**
 * Close the stdin of the child that an SDK `StdioClientTransport` spawned, without the transport's own
 * `close()` (which signals only the direct child): the first step of {@link stopProcessTree}.
 *
 *   await stopProcessTree(transport.pid!, () => endStdin(transport));
 *
 * Only for the test harness and the benches that drive the bare SDK client; the host itself uses its own
 * `StdioTransport` (stdioTransport.ts), which reads no SDK private field.
 */
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The child process the SDK keeps privately (`_process`, SDK 1.x). */
interface WithProcess {
  _process?: { stdin?: { end(): void; destroyed?: boolean } | null };
}

/** End the child's stdin (EOF). Returns false when there is no live child or stdin. Never throws. */
export function endStdin(transport: StdioClientTransport): boolean {
  const stdin = (transport as unknown as WithProcess)._process?.stdin;
  if (!stdin || stdin.destroyed) return false;
  try {
    stdin.end();
    return true;
  } catch {
    return false;
  }
}
