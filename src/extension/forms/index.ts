/**
 * One form for several fields: tool arguments and elicitation requests with more than one field open as a webview
 * built from the JSON Schema (text, numbers, checkboxes, choices with defaults preselected, descriptions, required
 * marks), checked with the same ajv rules as the core (2020-12 unless `$schema` says otherwise) before it is
 * accepted, with a Raw JSON mode. The page (media/forms/form.js) runs under a strict CSP: no network, no inline code.
 */
import * as vscode from 'vscode';
import type { ErrorObject } from 'ajv';
import { compileSchema } from '../../mcp';

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

export class OpenForm {
  /** Errors the page was last told about (field → message; '' for the whole object). */
  lastErrors: Record<string, string> = {};
  private done = false;

  constructor(readonly request: FormRequest, readonly panel: vscode.WebviewPanel, private readonly finish: (a: FormAnswer) => void) {}

  /** A message from the page (tests call it as the page would). */
  receive(m: unknown): void {
    if (this.done || !m || typeof m !== 'object') return;
    const msg = m as { type?: unknown; value?: unknown; text?: unknown };
    if (msg.type === 'cancel') return this.end({ action: 'cancel' });
    if (msg.type === 'decline' && this.request.decline) return this.end({ action: 'decline' });
    let value: unknown = msg.value;
    if (msg.type === 'raw') {
      if (typeof msg.text !== 'string' || msg.text.length > MAX_MESSAGE_CHARS) return this.errors({ '': 'The JSON is too large.' });
      try { value = JSON.parse(msg.text); } catch (err) { return this.errors({ '': `Not JSON: ${err instanceof Error ? err.message : String(err)}` }); }
    } else if (msg.type !== 'submit') return;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return this.errors({ '': 'Expected a JSON object.' });
    if (JSON.stringify(value).length > MAX_MESSAGE_CHARS) return this.errors({ '': 'The value is too large.' });
    const errors = validate(this.request.schema, value);
    if (Object.keys(errors).length) return this.errors(errors);
    this.end({ action: 'submit', value: value as Record<string, unknown> });
  }

  private errors(e: Record<string, string>): void {
    this.lastErrors = e;
    void this.panel.webview.postMessage({ type: 'errors', errors: e });
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
  const v = compileSchema({ type: 'object', ...schema }, 'form');
  if (v instanceof Error) return { '': `The schema cannot be checked: ${v.message}` };
  if (v(value)) return {};
  const out: Record<string, string> = {};
  for (const e of (v.errors ?? []) as ErrorObject[]) {
    const field = e.instancePath.split('/')[1] ?? (e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty ?? '') : '');
    const key = field.replace(/~1/g, '/').replace(/~0/g, '~');
    out[key] ??= e.keyword === 'required' ? 'Required.' : (e.message ?? 'Invalid.');
  }
  return out;
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

/** The form host the commands and elicitation use (set by the extension; undefined: quick inputs only). */
export let forms: Forms | undefined;
export function useForms(f: Forms | undefined): void { forms = f; }
