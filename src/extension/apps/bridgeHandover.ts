/**
 * The host's SDK, core schemas and zod, handed to the MCP Apps bridge's bundle (dist/app-bridge.js, esbuild.mjs
 * LAZY `handover`): ext-apps' bridge imports `Protocol` from `@modelcontextprotocol/client`, a few protocol schemas
 * from `@modelcontextprotocol/core` and `z` from `zod/v4`, all of which the main bundle holds already. Built, the
 * bridge's imports of them read this module, which holds the main bundle's own exports once `provideBridgeSdk` has
 * run: one SDK and one zod in the extension host, not a second copy whose loading (compiling 0.8 MB and building
 * every protocol schema again, about 130 ms in one turn of the extension host) and survivors in the young heap the
 * first App view used to pay for. Unbundled (out/, tests) the bridge imports them from node_modules and this is a
 * no-op. Nothing here is global: only the code that loads the bundle reaches it.
 */
import type * as Client from '@modelcontextprotocol/client';
import type * as Core from '@modelcontextprotocol/core';
import type * as Zod from 'zod/v4';

/** What the bridge may import, by module (esbuild.mjs builds the same lists into the bundle's stand-in). */
export const BRIDGE_HANDOVER = {
  '@modelcontextprotocol/client': ['Protocol'],
  '@modelcontextprotocol/core': [
    'CallToolResultSchema', 'ContentBlockSchema', 'EmbeddedResourceSchema', 'EmptyResultSchema', 'ImplementationSchema',
    'JSONRPCMessageSchema', 'LoggingMessageNotificationSchema', 'RequestIdSchema', 'ResourceLinkSchema', 'ToolSchema',
  ],
  'zod/v4': ['z'],
} as const;

/**
 * The zod functions the bridge calls on its `z` (ext-apps builds its schemas with these): the host hands over an
 * object of exactly these, taken from its own zod by name, not zod's whole `z` namespace, which would bring every
 * zod export (and locale) into the main bundle. test/unit/apps.bridge.test.ts checks the list against ext-apps.
 */
export const BRIDGE_ZOD = ['any', 'array', 'boolean', 'literal', 'never', 'number', 'object', 'record', 'string', 'undefined', 'union', 'unknown'] as const;

type Names<M extends keyof typeof BRIDGE_HANDOVER> = (typeof BRIDGE_HANDOVER)[M][number];
/** The host's exports the bridge's bundle reads. */
export type BridgeSdk = Pick<typeof Client, Names<'@modelcontextprotocol/client'>>
  & Pick<typeof Core, Names<'@modelcontextprotocol/core'>>
  & { z: Pick<typeof Zod, (typeof BRIDGE_ZOD)[number]> };

/** Hands `sdk` to the bridge bundle's imports, before anything in it that imports them runs. */
export function provideBridgeSdk(sdk: BridgeSdk): void {
  for (const name of Object.values(BRIDGE_HANDOVER).flat()) {
    const v = (sdk as unknown as Record<string, unknown>)[name];
    if (v === undefined || v === null) throw new TypeError(`the host handed to a lazy bundle has no ${name}`);
  }
  for (const name of BRIDGE_ZOD) {
    if (sdk.z[name] === undefined) throw new TypeError(`the host handed to a lazy bundle has no z.${name}`);
  }
}
