/**
 * The host's SDK, handed to a bundle loaded on first use that imports `@modelcontextprotocol/client` itself
 * (esbuild.mjs, LAZY `sdk`): built, such a bundle's imports of the SDK read this module, which holds the main
 * bundle's own exports once `provideSdk` has run, so there is one SDK (one `Client`, `instanceof ProtocolError`
 * holds across the two bundles) and no second copy of it in the lazy bundle. Unbundled (out/, tests) the lazy
 * module imports the SDK from node_modules and this is a no-op. Nothing here is global: only the code that loads
 * the bundle reaches it.
 */
import type * as Sdk from '@modelcontextprotocol/client';

/** The SDK exports a lazy bundle may import (esbuild.mjs builds the same list into the bundle's stand-in). */
export const SDK_HANDOVER = ['Client', 'ProtocolError'] as const;

/** The host's SDK exports a lazy bundle reads. */
export type SdkHandover = Pick<typeof Sdk, (typeof SDK_HANDOVER)[number]>;

/** Hands `sdk` to the lazy bundle's SDK imports, before anything in it that imports the SDK runs. */
export function provideSdk(sdk: SdkHandover): void {
  for (const name of SDK_HANDOVER) {
    if (typeof sdk[name] !== 'function') throw new TypeError(`the SDK handed to a lazy bundle has no ${name}`);
  }
}
