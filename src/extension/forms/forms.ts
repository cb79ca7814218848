/**
 * One form for several fields: tool arguments and elicitation requests with more than one field open as a webview
 * built from the JSON Schema (text, numbers, checkboxes, choices with defaults preselected, descriptions, required
 * marks), checked with the same ajv rules as the core (2020-12 unless `$schema` says otherwise) before it is
 * accepted, with a Raw JSON mode. The page (media/forms/form.js) runs under a strict CSP: no network, no inline code.
 */
import * as vscode from 'vscode';
import type { ErrorObject } from 'ajv';
import { compileSchema, schemaProblem } from '../../mcp';

export interface FormRequest {
  title: string;
  /** Shown above the fields (an elicitation's message). */
  message?: string;
  schema: { properties?: Record<string, unknown>; required?: string[] };
  /** Offer Decline as well as Cancel (elicitation). */
  decline?: boolean;
}

export type FormAnswer = { action: 'submit'; value: Record<string, unknown> } | { action: 'cancel' } | { action: 'decline' };

/** A message from the page, bounded. */
const MAX_MESSAGE_CHARS = 1024 * 1024;

/** One error with where it is in the value, as the Raw JSON mode lists it (`a`, `items[0].name`; '' for the whole value). */
export interface FormError { path: string; message: string }

/** At most this many errors go to the page's list. */
const MAX_LISTED_ERRORS = 20;

export class OpenForm {
  /** Errors the page was last told about (field → message; '' for the whole object), as the form mode shows them. */
  lastErrors: Record<string, string> = {};
  /** The same errors as the Raw JSON mode lists them, each with its path. */
  lastErrorList: FormError[] = [];
  private done = false;

  constructor(readonly request: FormRequest, readonly panel: vscode.WebviewPanel, private readonly finish: (a: FormAnswer) => void) {}

  /** A message from the page (tests call it as the page would). */
  receive(m: unknown): void {
    if (this.done || !m || typeof m !== 'object') return;
    const msg = m as { type?: unknown; value?: unknown; text?: unknown };
    if (msg.type === 'cancel') return this.end({ action: 'cancel' });
    if (msg.type === 'decline' && this.request.decline) return this.end({ action: 'decline' });
    let value: unknown = msg.value;
    const whole = (message: string) => this.errors({ '': message }, [{ path: '', message }]);
    if (msg.type === 'raw') {
      if (typeof msg.text !== 'string' || msg.text.length > MAX_MESSAGE_CHARS) return whole(vscode.l10n.t('The JSON is too large.'));
      try { value = JSON.parse(msg.text); } catch (err) { return whole(vscode.l10n.t('Not JSON: {0}', err instanceof Error ? err.message : String(err))); }
    } else if (msg.type !== 'submit') return;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return whole(vscode.l10n.t('Expected a JSON object.'));
    if (JSON.stringify(value).length > MAX_MESSAGE_CHARS) return whole(vscode.l10n.t('The value is too large.'));
    const found = located(this.request.schema, value);
    if (found.length) return this.errors(byField(found, msg.type === 'raw' ? 'raw' : 'form'), found.slice(0, MAX_LISTED_ERRORS).map(({ path, message }) => ({ path, message })));
    this.end({ action: 'submit', value: value as Record<string, unknown> });
  }

  private errors(e: Record<string, string>, list: FormError[]): void {
    this.lastErrors = e;
    this.lastErrorList = list;
    void this.panel.webview.postMessage({ type: 'errors', errors: e, list });
  }

  end(a: FormAnswer): void {
    if (this.done) return;
    this.done = true;
    this.finish(a);
    this.panel.dispose();
  }
}

/** Field → message from the host's ajv rules; '' holds what belongs to no field. */
export function validate(schema: object, value: unknown): Record<string, string> {
  return byField(located(schema, value), 'form');
}

/**
 * Every error of the host's ajv rules with its path (`a`, `items[0].name`; a missing property's own path), in words a
 * person reads: "must be a number", never ajv's "must be number" (the core's `schemaProblem`, localised).
 */
export function validateAll(schema: object, value: unknown): FormError[] {
  return located(schema, value).map(({ path, message }) => ({ path, message }));
}

/**
 * An error, the top-level field it belongs to ('' for none), whether it is about that field itself, and the type the
 * field wanted when the error is that its value has another (a number field holding text).
 */
interface Located extends FormError { field: string; own: boolean; wanted?: string }

function located(schema: object, value: unknown): Located[] {
  const v = compileSchema({ type: 'object', ...schema }, 'form');
  if (v instanceof Error) return [{ path: '', message: vscode.l10n.t('The schema cannot be checked: {0}', v.message), field: '', own: true }];
  if (v(value)) return [];
  return ((v.errors ?? []) as ErrorObject[]).map(e => {
    const segments = e.instancePath.split('/').slice(1).map(unescapePointer);
    if (e.keyword === 'required') segments.push(String((e.params as { missingProperty?: unknown }).missingProperty ?? ''));
    const wanted = e.keyword === 'type' ? String((e.params as { type?: unknown }).type ?? '') : undefined;
    return { path: displayPath(segments), message: e.keyword === 'required' ? vscode.l10n.t('Required.') : schemaProblem(e, 'words'), field: segments[0] ?? '', own: segments.length <= 1, wanted };
  });
}

/** Field → the first message for it. In form mode a value of the wrong type was typed text: "Enter a number." */
function byField(list: Located[], mode: 'form' | 'raw'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of list) {
    const message = mode === 'form' && e.own ? typedAs(e) : e.message;
    out[e.field] ??= e.own ? message : `${e.path}: ${message}`;
  }
  return out;
}

/** What a form field says when its text is not of the field's type (by the error's type, not its words). */
function typedAs(e: Located): string {
  if (e.wanted === 'number') return vscode.l10n.t('Enter a number.');
  if (e.wanted === 'integer') return vscode.l10n.t('Enter a whole number.');
  return e.message;
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `a`, `a.b`, `items[0].name`; a key that is not a plain name in brackets as JSON (`["a b"]`). */
function displayPath(segments: string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) && i > 0 ? `[${s}]` : /^[A-Za-z_$][\w$-]*$/.test(s) ? (i ? `.${s}` : s) : `[${JSON.stringify(s)}]`)).join('');
}

export class Forms implements vscode.Disposable {
  /** The form on screen (tests drive it). */
  active?: OpenForm;

  constructor(private readonly extensionUri: vscode.Uri) {}

  open(request: FormRequest): Promise<FormAnswer> {
    const media = vscode.Uri.joinPath(this.extensionUri, 'media', 'forms');
    const panel = vscode.window.createWebviewPanel('mcpHost.form', request.title, vscode.ViewColumn.Active, {
      enableScripts: true, enableCommandUris: false, localResourceRoots: [media],
    });
    return new Promise<FormAnswer>(resolve => {
      const form = new OpenForm(request, panel, a => { if (this.active === form) this.active = undefined; resolve(a); });
      this.active = form;
      panel.webview.onDidReceiveMessage(m => form.receive(m));
      panel.onDidDispose(() => form.end({ action: 'cancel' }));
      panel.webview.html = page(panel.webview, media, request);
    });
  }

  dispose(): void { this.active?.end({ action: 'cancel' }); }
}

function page(w: vscode.Webview, media: vscode.Uri, r: FormRequest): string {
  const src = (f: string) => w.asWebviewUri(vscode.Uri.joinPath(media, f)).toString();
  // The spec travels as JSON in a data element (never as code): `<` escaped so no server text can close it.
  const spec = JSON.stringify({ title: r.title, message: r.message ?? '', schema: r.schema, decline: !!r.decline }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${w.cspSource}; style-src ${w.cspSource}; img-src ${w.cspSource};">
<link rel="stylesheet" href="${src('form.css')}"></head>
<body><script type="application/json" id="spec">${spec}</script><form id="form" novalidate></form>
<script src="${src('form.js')}"></script></body></html>`;
}
