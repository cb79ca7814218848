/**
 * `@modelcontextprotocol/ext-tasks`' client (with the zod build it brings), loaded by the first 2026-07-28
 * server that declares the Tasks extension: in production its own bundle dist/ext-tasks.js (esbuild.mjs, LAZY),
 * which reads the host's SDK through sdkHandover.ts instead of carrying a second copy of it.
 */
import { provideSdk, type SdkHandover } from './sdkHandover';

/** ext-tasks' client module, its SDK imports bound to `sdk` (the host's). */
export async function loadExtTasks(sdk: SdkHandover): Promise<typeof import('@modelcontextprotocol/ext-tasks/client', { with: { 'resolution-mode': 'import' } })> {
  provideSdk(sdk);
  return import('@modelcontextprotocol/ext-tasks/client');
}
