/**
 * The bound on server→client requests (sampling, elicitation, roots) waiting per server session: at
 * most `maxPendingServerRequests` run at once; the rest are refused at once with a JSON-RPC error that
 * names the limit and its setting — a server firing thousands of requests never opens thousands of
 * dialogs, and never queues unbounded work in the host.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { limitMessage } from '../limits';

/** JSON-RPC error code for "too many requests waiting" (implementation-defined server error range). */
export const TOO_MANY_PENDING = -32001;

export class PendingServerRequests {
  private pending = 0;

  constructor(private readonly server: () => string, private readonly max: number) {}

  /** Requests admitted and not yet answered. */
  get size(): number {
    return this.pending;
  }

  /** Runs `handle` if fewer than the limit are waiting; otherwise throws an ProtocolError (sent back to the server). */
  async run<T>(method: string, handle: () => T | Promise<T>): Promise<T> {
    if (this.pending >= this.max) {
      throw new ProtocolError(TOO_MANY_PENDING, limitMessage(this.server(), this.max, { kind: 'pendingRequests', method }));
    }
    this.pending++;
    try {
      return await handle();
    } finally {
      this.pending--;
    }
  }
}
