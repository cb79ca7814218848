/**
 * Editor-free part of elicitation (form mode): the requested schema as a list of fields, and the
 * conversion of what the user typed or picked into schema-valid values.
 */
import { shortPattern, testPattern } from '../../mcp';
import * as l10n from '@vscode/l10n';

export interface ElicitOption { value: string; label: string }

export interface ElicitField {
  name: string;
  /** Title or name, for the input's title. */
  label: string;
  description?: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi';
  required: boolean;
  /** For enum and multi fields. */
  options?: ElicitOption[];
  default?: unknown;
  /**
   * The answer the schema's `default` stands for (SEP-1034), as the UI gives answers: preselected
   * there, so accepting it unchanged returns the default. Absent when there is no default or it is
   * not a valid answer for the field (a choice that is not offered, a number out of range).
   */
  initial?: string | string[];
  /** String `format` (email, uri, date, date-time) and length limits; number bounds. */
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  /** A string field's `pattern`, checked on the host's linear-time engine (regexp.ts). */
  pattern?: string;
}

type Schema = Record<string, unknown>;

function options(s: Schema): ElicitOption[] | undefined {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? s.enumNames : [];
    return s.enum.map((v, i) => ({ value: String(v), label: typeof names[i] === 'string' ? names[i] as string : String(v) }));
  }
  const alt = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
  if (alt) {
    return alt.filter((o): o is Schema => !!o && typeof o === 'object' && 'const' in o)
      .map(o => ({ value: String(o.const), label: typeof o.title === 'string' ? o.title : String(o.const) }));
  }
  return undefined;
}

/** The raw answer that stands for `field.default`, if it is one the field accepts. */
function initialOf(field: ElicitField): string | string[] | undefined {
  const d = field.default;
  let raw: string | string[] | undefined;
  switch (field.kind) {
    case 'boolean': raw = typeof d === 'boolean' ? String(d) : undefined; break;
    case 'number':
    case 'integer': raw = typeof d === 'number' && Number.isFinite(d) ? String(d) : undefined; break;
    case 'string':
    case 'enum': raw = typeof d === 'string' && d !== '' ? d : undefined; break;
    case 'multi': raw = Array.isArray(d) && d.every(v => typeof v === 'string') ? d as string[] : undefined; break;
  }
  if (raw === undefined) return undefined;
  const r = coerce({ ...field, required: true }, raw);
  if (!('value' in r)) return undefined;
  return field.kind === 'enum' ? String(r.value) : raw;
}

/** The fields of an elicitation `requestedSchema`, in the order given. Field names are data (own properties). */
export function fieldsOf(schema: { properties?: Record<string, unknown>; required?: string[] }): ElicitField[] {
  return fieldsWithoutInitial(schema).map(f => {
    const initial = initialOf(f);
    return initial === undefined ? f : { ...f, initial };
  });
}

function fieldsWithoutInitial(schema: { properties?: Record<string, unknown>; required?: string[] }): ElicitField[] {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  return Object.entries(properties).map(([name, raw]): ElicitField => {
    const s = (raw && typeof raw === 'object' ? raw : {}) as Schema;
    const base = {
      name,
      label: typeof s.title === 'string' ? s.title : name,
      description: typeof s.description === 'string' ? s.description : undefined,
      required: required.has(name),
      default: s.default,
    };
    const num = (k: string) => (typeof s[k] === 'number' ? s[k] as number : undefined);
    if (s.type === 'array') {
      const items = (s.items && typeof s.items === 'object' ? s.items : {}) as Schema;
      return { ...base, kind: 'multi', options: options(items) ?? [], minItems: num('minItems'), maxItems: num('maxItems') };
    }
    if (s.type === 'boolean') return { ...base, kind: 'boolean' };
    if (s.type === 'number' || s.type === 'integer') return { ...base, kind: s.type, minimum: num('minimum'), maximum: num('maximum') };
    const opts = options(s);
    if (opts) return { ...base, kind: 'enum', options: opts };
    return {
      ...base, kind: 'string', format: typeof s.format === 'string' ? s.format : undefined,
      minLength: num('minLength'), maxLength: num('maxLength'),
      pattern: typeof s.pattern === 'string' ? s.pattern : undefined,
    };
  });
}

/**
 * Converts a raw answer (typed text, picked value(s), or '' for "skip") to the field's value.
 * Returns `{ skip: true }` for an empty optional answer, or `{ error }` with a readable message.
 */
export function coerce(field: ElicitField, raw: string | string[]): { value: unknown } | { skip: true } | { error: string } {
  if (raw === '' || (Array.isArray(raw) && raw.length === 0 && field.kind !== 'multi')) {
    return field.required ? { error: l10n.t('{0} is required', field.label) } : { skip: true };
  }
  switch (field.kind) {
    case 'multi': {
      const list = Array.isArray(raw) ? raw : raw.split(',').map(s => s.trim()).filter(Boolean);
      if (!list.length && !field.required) return { skip: true };
      if (field.minItems !== undefined && list.length < field.minItems) return { error: l10n.t('Pick at least {0}', field.minItems) };
      if (field.maxItems !== undefined && list.length > field.maxItems) return { error: l10n.t('Pick at most {0}', field.maxItems) };
      const bad = list.find(v => !field.options?.some(o => o.value === v));
      return bad !== undefined ? { error: l10n.t('"{0}" is not one of the choices', bad) } : { value: list };
    }
    case 'boolean': {
      const v = String(raw).toLowerCase();
      if (['true', 'yes', 'y', '1'].includes(v)) return { value: true };
      if (['false', 'no', 'n', '0'].includes(v)) return { value: false };
      return { error: l10n.t('Answer yes or no') };
    }
    case 'number':
    case 'integer': {
      const n = Number(String(raw).trim());
      if (!Number.isFinite(n) || String(raw).trim() === '') return { error: l10n.t('Enter a number') };
      if (field.kind === 'integer' && !Number.isInteger(n)) return { error: l10n.t('Enter a whole number') };
      if (field.minimum !== undefined && n < field.minimum) return { error: l10n.t('At least {0}', field.minimum) };
      if (field.maximum !== undefined && n > field.maximum) return { error: l10n.t('At most {0}', field.maximum) };
      return { value: n };
    }
    case 'enum': {
      const v = String(raw);
      const hit = field.options?.find(o => o.value === v) ?? field.options?.find(o => o.label === v);
      return hit ? { value: hit.value } : { error: l10n.t('"{0}" is not one of the choices', v) };
    }
    case 'string': {
      const v = String(raw);
      if (field.minLength !== undefined && v.length < field.minLength) return { error: l10n.t('At least {0} characters', field.minLength) };
      if (field.maxLength !== undefined && v.length > field.maxLength) return { error: l10n.t('At most {0} characters', field.maxLength) };
      // A pattern the linear-time engine cannot run is not checked here (the server checks its own answer).
      if (field.pattern !== undefined && testPattern(field.pattern, v) === false) return { error: l10n.t('Must match {0}', shortPattern(field.pattern)) };
      if (field.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(v)) return { error: l10n.t('Enter an email address') };
      if (field.format === 'uri' && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(v)) return { error: l10n.t('Enter a URI (scheme:…)') };
      if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(v)) return { error: l10n.t('Enter a date as YYYY-MM-DD') };
      if (field.format === 'date-time' && Number.isNaN(Date.parse(v))) return { error: l10n.t('Enter a date and time (ISO 8601)') };
      return { value: v };
    }
  }
}
