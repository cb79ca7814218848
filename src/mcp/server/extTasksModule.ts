/**
 * `@modelcontextprotocol/ext-tasks`' client, loaded by the first server that declares the Tasks extension: in
 * production its own bundle dist/ext-tasks.js (esbuild.mjs, LAZY), which reads the host's SDK and zod through
 * sdkHandover.ts instead of carrying second copies of them.
 */
import { provideSdk, type SdkHandover } from './sdkHandover';

/** ext-tasks' client module, its SDK and zod imports bound to `sdk` (the host's). */
export async function loadExtTasks(sdk: SdkHandover): Promise<typeof import('@modelcontextprotocol/ext-tasks/client', { with: { 'resolution-mode': 'import' } })> {
  provideSdk(sdk);
  return import('@modelcontextprotocol/ext-tasks/client');
}
