/**
 * Preloaded (`node -r`) into servers we run for tests that listen on a bare port (server-everything's
 * HTTP modes): makes them bind 127.0.0.1 instead of every interface.
 */
import * as net from 'node:net';

const original = net.Server.prototype.listen;
net.Server.prototype.listen = function patched(this: net.Server, ...args: unknown[]) {
  const first = args[0];
  const isPort = typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first));
  if (isPort && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return (original as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof net.Server.prototype.listen;
