/**
 * The host's SDK and zod, handed to ext-tasks' bundle, loaded on first use, which imports `@modelcontextprotocol/client`
 * and `zod/v4` itself (esbuild.mjs, LAZY `handover`): built, that bundle's imports of them read this module, which
 * holds the main bundle's own exports once `provideSdk` has run, so there is one SDK (one `Client`, `instanceof
 * ProtocolError` holds across the two bundles) and one zod, and no second copy of either in the lazy bundle.
 * Unbundled (out/, tests) the lazy module imports them from node_modules and this only checks. Nothing here is
 * global: only the code that loads the bundle reaches it.
 */
import type * as Sdk from '@modelcontextprotocol/client';
import * as zod from 'zod/v4';

/** The SDK exports a lazy bundle may import (esbuild.mjs builds the same list into the bundle's stand-in). */
export const SDK_HANDOVER = ['Client', 'ProtocolError'] as const;

/**
 * The zod functions (and the one constant) ext-tasks builds its schemas with: the host hands over an object of
 * exactly these, from its own zod, never zod's whole namespace (which would bring every zod export and locale into
 * the main bundle); ext-tasks reads them as `z.x` of `import * as z` and of `import { z }` alike. esbuild.mjs
 * builds the same list into the stand-in; test/unit/bundle.lazy.test.ts checks it against ext-tasks.
 */
export const EXT_TASKS_ZOD = [
  'NEVER', 'array', 'boolean', 'custom', 'discriminatedUnion', 'enum', 'int', 'intersection', 'literal', 'number', 'object',
  'record', 'strictObject', 'string', 'union', 'unknown',
] as const;

/** The host's SDK exports and zod functions a lazy bundle reads. */
export type SdkHandover = Pick<typeof Sdk, (typeof SDK_HANDOVER)[number]> & { z: Pick<typeof zod, (typeof EXT_TASKS_ZOD)[number]> };

/** Hands `sdk` to the lazy bundle's SDK and zod imports, before anything in it that imports them runs. */
export function provideSdk(sdk: SdkHandover): void {
  for (const name of SDK_HANDOVER) {
    if (typeof sdk[name] !== 'function') throw new TypeError(`the host handed to a lazy bundle has no ${name}`);
  }
  for (const name of EXT_TASKS_ZOD) {
    if (sdk.z?.[name] === undefined) throw new TypeError(`the host handed to a lazy bundle has no z.${name}`);
  }
}

/** The host's own zod functions in EXT_TASKS_ZOD, by name (static reads, so the main bundle keeps only these). */
export function extTasksZod(): SdkHandover['z'] {
  return {
    NEVER: zod.NEVER, array: zod.array, boolean: zod.boolean, custom: zod.custom, discriminatedUnion: zod.discriminatedUnion, enum: zod.enum,
    int: zod.int, intersection: zod.intersection, literal: zod.literal, number: zod.number, object: zod.object, record: zod.record,
    strictObject: zod.strictObject, string: zod.string, union: zod.union, unknown: zod.unknown,
  };
}
