/**
 * The MCP Apps host bridge (@modelcontextprotocol/ext-apps' app-bridge), loaded by the first App view: in production
 * its own bundle dist/app-bridge.js (esbuild.mjs, LAZY), which reads the host's SDK, core schemas and zod through
 * bridgeHandover.ts instead of carrying second copies of them.
 */
import { provideBridgeSdk, type BridgeSdk } from './bridgeHandover';

/**
 * ext-apps' bridge module, its SDK, schema and zod imports bound to `sdk` (the host's). What is handed over is
 * checked before the bridge's code runs (a module whose evaluation failed would stay failed for the session).
 */
export async function loadAppBridge(sdk: BridgeSdk): Promise<typeof import('@modelcontextprotocol/ext-apps/app-bridge', { with: { 'resolution-mode': 'import' } })> {
  provideBridgeSdk(sdk);
  return import('@modelcontextprotocol/ext-apps/app-bridge');
}
