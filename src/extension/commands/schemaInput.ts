import * as vscode from 'vscode';
import { setOwn, shortPattern, testPattern } from '../../mcp';
import type { Forms } from '../forms/forms';
import type { QuickInputs } from '../ui/quickInputs';
import { argumentStep } from './complete';

interface PropSchema {
  type?: string | string[];
  enum?: unknown[];
  items?: { type?: string };
  description?: string;
  title?: string;
  default?: unknown;
  /** Checked as the user types, on the host's linear-time engine (never a backtracking RegExp). */
  pattern?: unknown;
}

/** Sentinel for "leave this optional field out". */
const skipLabel = (): string => vscode.l10n.t('(leave empty)');

/**
 * Asks for tool arguments one field at a time, driven by the tool's `inputSchema`: enums and
 * booleans as pick lists, numbers and strings as input boxes, arrays of strings comma-separated,
 * anything else as JSON. Validation against the schema happens in the core before the call.
 * Resolves undefined when the user cancels. Property names are data (`__proto__` is a field like any other).
 * `ui.forms`: the form host (extension.ts gives it at registration); without one, quick inputs only (`ui.quickInputs`).
 */
export async function askArguments(title: string, schema: { properties?: Record<string, unknown>; required?: string[] }, ui: { forms?: Forms; quickInputs: QuickInputs }): Promise<Record<string, unknown> | undefined> {
  const { forms, quickInputs } = ui;
  const properties = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  // More than one field: one form (forms/), not a string of quick inputs.
  if (forms && Object.keys(properties).length > 1) {
    const a = await forms.open({ title, schema: { properties, required: schema.required } });
    return a.action === 'submit' ? a.value : undefined;
  }
  const props = Object.entries(properties).map(([k, v]) => [k, (v && typeof v === 'object' ? v : {}) as PropSchema] as [string, PropSchema]);
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter(r => typeof r === 'string') : []);
  props.sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)));
  const out: Record<string, unknown> = {};
  for (const [i, [name, prop]] of props.entries()) {
    const step = argumentStep(title, i, props.length, name, required.has(name));
    const value = await askField(quickInputs, step, name, prop, required.has(name));
    if (value === CANCEL) return undefined;
    if (value !== OMIT) setOwn(out, name, value);
  }
  return out;
}

const CANCEL = Symbol('cancel');
const OMIT = Symbol('omit');

async function askField(quickInputs: QuickInputs, title: string, name: string, p: PropSchema, required: boolean): Promise<unknown> {
  const type = Array.isArray(p.type) ? p.type.find(t => t !== 'null') : p.type;
  const prompt = p.description ?? p.title ?? name;
  if (p.enum || type === 'boolean') {
    const values = p.enum ?? [true, false];
    const items = values.map(v => ({ label: String(v), value: v as unknown }));
    if (!required) items.push({ label: skipLabel(), value: OMIT });
    const pick = await quickInputs.showPick(items, { title, placeHolder: prompt, ignoreFocusOut: true });
    return pick ? pick.value : CANCEL;
  }
  const isNumber = type === 'number' || type === 'integer';
  const isStringArray = type === 'array' && (p.items?.type === 'string' || p.items?.type === undefined);
  const isJson = !isNumber && !isStringArray && type !== 'string' && type !== undefined;
  const text = await quickInputs.showInput({
    title,
    prompt: `${prompt}${isStringArray ? vscode.l10n.t(' — comma-separated') : isJson ? vscode.l10n.t(' — JSON {0}', String(type)) : ''}`,
    value: p.default === undefined ? undefined : typeof p.default === 'string' ? p.default : JSON.stringify(p.default),
    ignoreFocusOut: true,
    validateInput: v => {
      if (v === '') return required && type !== 'string' ? vscode.l10n.t('{0} is required', name) : undefined;
      if (isNumber && !Number.isFinite(Number(v))) return vscode.l10n.t('Enter a number');
      if (type === 'integer' && !Number.isInteger(Number(v))) return vscode.l10n.t('Enter a whole number');
      if (isJson) { try { JSON.parse(v); } catch { return vscode.l10n.t('Enter valid JSON'); } }
      if (type === 'string' && typeof p.pattern === 'string' && testPattern(p.pattern, v) === false) return vscode.l10n.t('Must match {0}', shortPattern(p.pattern));
      return undefined;
    },
  });
  if (text === undefined) return CANCEL;
  if (text === '') return required && type === 'string' ? '' : OMIT;
  if (isNumber) return Number(text);
  if (isStringArray) return text.split(',').map(s => s.trim()).filter(Boolean);
  if (isJson) return JSON.parse(text);
  return text;
}
