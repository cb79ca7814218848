/**
 * The MCP Apps host bridge (@modelcontextprotocol/ext-apps' app-bridge), loaded by the first App view: in production
 * its own bundle dist/app-bridge.js (esbuild.mjs, LAZY), which reads the host's SDK, core schemas and zod through
 * bridgeHandover.ts instead of carrying second copies of them.
 */
import { provideBridgeSdk, type BridgeSdk } from './bridgeHandover';

/**
 * The zod functions the bridge calls on its `z` (ext-apps builds its schemas with these): the host hands over an
 * object of exactly these, taken from its own zod by name, not zod's whole `z` namespace, which would bring every
 * zod export (and locale) into the main bundle. test/unit/apps.bridge.test.ts checks the list against ext-apps.
 */
export const BRIDGE_ZOD = ['any', 'array', 'boolean', 'literal', 'never', 'number', 'object', 'record', 'string', 'undefined', 'union', 'unknown'] as const;

/**
 * ext-apps' bridge module, its SDK, schema and zod imports bound to `sdk` (the host's). What is handed over is
 * checked before the bridge's code runs: a module whose evaluation failed would stay failed for the session.
 */
export async function loadAppBridge(sdk: BridgeSdk): Promise<typeof import('@modelcontextprotocol/ext-apps/app-bridge', { with: { 'resolution-mode': 'import' } })> {
  for (const name of BRIDGE_ZOD) {
    if (typeof (sdk.z as Record<string, unknown> | undefined)?.[name] !== 'function') throw new TypeError(`the zod handed to the App bridge has no ${name}`);
  }
  provideBridgeSdk(sdk);
  return import('@modelcontextprotocol/ext-apps/app-bridge');
}
