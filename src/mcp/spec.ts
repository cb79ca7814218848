/**
 * The SDK v2's protocol schemas, as the host uses them: `specParse` checks a value against one named
 * spec type (the SDK's public `specTypeSchemas`, Standard Schema) and reports the issues as zod did;
 * `LOOSE_RESULT` is the result schema of requests whose result the host checks itself (tool results
 * block by block, catalogue pages item by item) or does not use (a 2025-11-25 `tasks/result` wait's answer).
 */
import { specTypeSchemas, type SpecTypeName, type SpecTypes, type StandardSchemaV1 } from '@modelcontextprotocol/client';

export interface SpecIssue {
  path: PropertyKey[];
  message: string;
}

export type SpecParse<T> = { success: true; data: T } | { success: false; error: { issues: SpecIssue[] } };

function issuePath(path: StandardSchemaV1.Issue['path']): PropertyKey[] {
  return (path ?? []).map(p => (typeof p === 'object' && p !== null ? p.key : p));
}

/** Checks `value` against the spec type `name`; never throws. */
export function specParse<K extends SpecTypeName>(name: K, value: unknown): SpecParse<SpecTypes[K]> {
  const r = specTypeSchemas[name]['~standard'].validate(value);
  if (r.issues === undefined) return { success: true, data: r.value as SpecTypes[K] };
  return { success: false, error: { issues: r.issues.map(i => ({ path: issuePath(i.path), message: i.message })) } };
}

/** Any JSON object: the request's result is checked by the caller (or not used). */
export const LOOSE_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-host',
    validate: (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { value: value as Record<string, unknown> }
      : { issues: [{ message: 'the result is not an object' }] }),
  },
};

/** A spec type's schema, for `client.request(…, schema)`. */
export function specSchema<K extends SpecTypeName>(name: K): StandardSchemaV1<unknown, SpecTypes[K]> {
  return specTypeSchemas[name] as unknown as StandardSchemaV1<unknown, SpecTypes[K]>;
}
