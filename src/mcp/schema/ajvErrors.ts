/** The one wording of ajv's validation errors for people: the field's path and what is wrong with it (tool arguments and results, the SDK's validator). */
import type { ErrorObject } from 'ajv';

/** "`path`: message" for the first few ajv errors; names the field. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = 'arguments'): string {
  if (!errors?.length) return 'does not match the schema';
  return errors.slice(0, 3).map(e => {
    let where = e.instancePath ? `${root}${e.instancePath.replace(/\//g, '.')}` : root;
    if (e.keyword === 'required' && typeof (e.params as { missingProperty?: string }).missingProperty === 'string') {
      where = `${where}.${(e.params as { missingProperty: string }).missingProperty}`;
      return `\`${where}\` is required`;
    }
    if (e.keyword === 'additionalProperties') {
      return `\`${where}.${(e.params as { additionalProperty: string }).additionalProperty}\` is not allowed`;
    }
    return `\`${where}\` ${e.message ?? 'is invalid'}`;
  }).join('; ');
}
