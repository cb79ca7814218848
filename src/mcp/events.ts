/** A tiny, editor-free event emitter in the shape of VS Code's: a private `Emitter`, a public `event`. */

export interface Disposable {
  dispose(): void;
}

/** Subscribe with a listener; dispose the result to unsubscribe. */
export type Event<T> = (listener: (e: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(e: T) => void>();
  private disposed = false;

  /** The public side: hand this out as `onDidX`. */
  readonly event: Event<T> = listener => {
    if (this.disposed) return { dispose() {} };
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  };

  /** Calls every listener; a listener that throws never stops the others. */
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        queueMicrotask(() => { throw err; });
      }
    }
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}

/** Collects disposables and disposes them together, last in first out. */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.items.push(d);
    return d;
  }

  dispose(): void {
    this.disposed = true;
    for (const d of this.items.reverse()) {
      try { d.dispose(); } catch { /* disposal must not stop the rest */ }
    }
    this.items = [];
  }
}

export function assertNever(x: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(x)}`);
}
