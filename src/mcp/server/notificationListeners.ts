/**
 * The server's notifications by method, for listeners outside the session (e.g. `notifications/tasks/status`): in
 * both eras, for every session of a connection (restarts included); a listener that throws is logged, never fatal.
 */
import { messageOf } from '../errors';
import type { Disposable } from '../events';
import type { ServerNotification } from './session';

/** One connection's notification listeners. */
export class NotificationListeners {
  private readonly notificationListeners = new Map<string, Set<(n: ServerNotification) => void>>();

  constructor(private readonly warn: (message: string) => void) {}

  dispatch(n: { method: string; params?: unknown }): void {
    const listeners = this.notificationListeners.get(n.method);
    if (!listeners?.size) return;
    const note: ServerNotification = { method: n.method, ...(n.params && typeof n.params === 'object' ? { params: n.params as Record<string, unknown> } : {}) };
    for (const l of [...listeners]) {
      try {
        l(note);
      } catch (err) {
        this.warn(`a listener of ${n.method} failed: ${messageOf(err)}`);
      }
    }
  }

  /**
   * Listens to the server's notifications of one method (e.g. `notifications/tasks/status`), in both eras,
   * for every session of this connection (restarts included), until disposed.
   */
  on(method: string, handler: (notification: ServerNotification) => void): Disposable {
    let set = this.notificationListeners.get(method);
    if (!set) this.notificationListeners.set(method, set = new Set());
    set.add(handler);
    return {
      dispose: () => {
        set.delete(handler);
        if (!set.size && this.notificationListeners.get(method) === set) this.notificationListeners.delete(method);
      },
    };
  }
}
