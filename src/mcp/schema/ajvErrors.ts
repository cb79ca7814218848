/**
 * The one wording of ajv's validation errors for people: the field's path and what is wrong with it (tool arguments
 * and results, the SDK's validator, the forms of src/extension/forms). ajv-i18n is not a dependency: the message of
 * each keyword a form or a tool schema commonly uses is written here from the error's keyword and params, through
 * `@vscode/l10n` (issue 40, H626); ajv's own English text is kept only for the other keywords.
 */
import type { ErrorObject } from 'ajv';
import * as l10n from '@vscode/l10n';
import { typeWord } from '../config/paths';

/**
 * How a `type` error names the types: `json` as ajv does ("must be number", "must be string,null": the JSON words, for
 * tool arguments), `words` as a form does ("must be a number", "must be a string or null", "must be true or false").
 */
export type TypeWording = 'json' | 'words';

/** The `type` of a form field in words: "a number", "true or false"; `null` and an unknown name as they are. */
function typeInWords(t: string): string {
  if (t === 'boolean') return l10n.t('true or false');
  return typeWord(t) ?? t;
}

/**
 * What is wrong with the value of one ajv error, without its path: "must be >= 1", "must match format \"email\"". In
 * English the same words as ajv's (tests and the CLI pin them); with a bundle, translated, the limit, pattern, format
 * and property name untouched.
 */
export function schemaProblem(e: ErrorObject, types: TypeWording = 'json'): string {
  const p = e.params as Record<string, unknown>;
  const v = (k: string) => String(p[k] ?? '');
  switch (e.keyword) {
    case 'required': return l10n.t('must have required property \'{0}\'', v('missingProperty'));
    case 'type': {
      const list = (Array.isArray(p.type) ? p.type.map(String) : v('type').split(',')).filter(Boolean);
      if (types === 'json') return l10n.t('must be {0}', list.join(','));
      const named = list.map(typeInWords);
      if (named.length === 0) break;
      return l10n.t('must be {0}', named.reduce((a, b) => l10n.t('{0} or {1}', a, b)));
    }
    case 'minimum': return l10n.t('must be >= {0}', v('limit'));
    case 'maximum': return l10n.t('must be <= {0}', v('limit'));
    case 'exclusiveMinimum': return l10n.t('must be > {0}', v('limit'));
    case 'exclusiveMaximum': return l10n.t('must be < {0}', v('limit'));
    case 'minLength': return l10n.t('must NOT have fewer than {0} characters', v('limit'));
    case 'maxLength': return l10n.t('must NOT have more than {0} characters', v('limit'));
    case 'minItems': return l10n.t('must NOT have fewer than {0} items', v('limit'));
    case 'maxItems': return l10n.t('must NOT have more than {0} items', v('limit'));
    case 'pattern': return l10n.t('must match pattern "{0}"', v('pattern'));
    case 'format': return l10n.t('must match format "{0}"', v('format'));
    case 'enum': return l10n.t('must be equal to one of the allowed values');
    case 'const': return l10n.t('must be equal to constant');
    case 'additionalProperties': return l10n.t('must NOT have additional properties');
  }
  return e.message ?? l10n.t('is not valid');
}

/** "`path`: message" for the first few ajv errors; names the field. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = 'arguments'): string {
  if (!errors?.length) return l10n.t('does not match the schema');
  return errors.slice(0, 3).map(e => {
    let where = e.instancePath ? `${root}${e.instancePath.replace(/\//g, '.')}` : root;
    if (e.keyword === 'required' && typeof (e.params as { missingProperty?: string }).missingProperty === 'string') {
      where = `${where}.${(e.params as { missingProperty: string }).missingProperty}`;
      return l10n.t('`{0}` is required', where);
    }
    if (e.keyword === 'additionalProperties') {
      return l10n.t('`{0}` is not allowed', `${where}.${(e.params as { additionalProperty: string }).additionalProperty}`);
    }
    return l10n.t('`{0}` {1}', where, schemaProblem(e));
  }).join('; ');
}
