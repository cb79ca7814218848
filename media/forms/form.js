// The form page (src/extension/forms/forms.ts builds it): fields from a JSON Schema's top-level properties, a Raw
// JSON mode, Submit / Cancel (/ Decline). The extension host checks the value with the host's ajv rules and answers
// with errors per field; nothing here is trusted, and every text is set as text, never as HTML.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const spec = JSON.parse(document.getElementById('spec').textContent);
  const form = document.getElementById('form');
  const props = spec.schema && typeof spec.schema.properties === 'object' && spec.schema.properties ? spec.schema.properties : {};
  const required = new Set(Array.isArray(spec.schema.required) ? spec.schema.required : []);
  const el = (tag, attrs, text) => { const e = document.createElement(tag); for (const k in attrs || {}) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = text; return e; };
  const typeOf = p => (Array.isArray(p.type) ? p.type.find(t => t !== 'null') : p.type);
  // Choices: enum, or oneOf/anyOf of { const, title } (titled enums), with the item schema for arrays.
  const choices = p => {
    if (Array.isArray(p.enum)) return p.enum.map((v, i) => ({ value: v, label: Array.isArray(p.enumNames) && p.enumNames[i] ? String(p.enumNames[i]) : String(v) }));
    const alts = p.oneOf || p.anyOf;
    if (Array.isArray(alts) && alts.every(a => a && 'const' in a)) return alts.map(a => ({ value: a.const, label: a.title ? String(a.title) : String(a.const) }));
    return undefined;
  };

  form.appendChild(el('h1', {}, spec.title));
  if (spec.message) form.appendChild(el('p', { class: 'message' }, spec.message));
  const general = el('div', { class: 'error', id: 'error-general', role: 'alert' });
  const fields = el('div', { id: 'fields' });
  const raw = el('textarea', { class: 'raw', id: 'raw', hidden: '', 'aria-label': 'The value as JSON' });
  // In Raw JSON mode the fields are hidden, so their errors are listed here, each naming its path in the JSON.
  const rawErrors = el('ul', { class: 'error error-list', id: 'raw-errors', hidden: '', role: 'alert' });
  form.append(fields, raw, rawErrors, general);
  const readers = {};
  /** Field name → its error element (names are server data: a Map, never an element id or a property). */
  const errorOf = new Map();

  for (const name of Object.keys(props)) {
    const p = props[name] && typeof props[name] === 'object' ? props[name] : {};
    const id = 'f-' + Object.keys(readers).length;
    const box = el('div', { class: 'field' });
    box.appendChild(el('label', { for: id, class: required.has(name) ? 'required' : '' }, p.title ? `${p.title} (${name})` : name));
    if (p.description) box.appendChild(el('div', { class: 'desc' }, String(p.description)));
    const t = typeOf(p);
    const opts = choices(p);
    const itemOpts = t === 'array' && p.items ? choices(p.items) : undefined;
    let input;
    if (t === 'boolean') {
      input = el('input', { type: 'checkbox', id });
      input.checked = p.default === true;
      readers[name] = () => input.checked;
    } else if (opts) {
      input = el('select', { id });
      if (!required.has(name)) input.appendChild(el('option', { value: '' }, '(leave empty)'));
      opts.forEach((o, i) => { const op = el('option', { value: String(i) }, o.label); if (JSON.stringify(o.value) === JSON.stringify(p.default)) op.selected = true; input.appendChild(op); });
      readers[name] = () => (input.value === '' ? undefined : opts[Number(input.value)].value);
    } else if (itemOpts) {
      input = el('select', { id, multiple: '' });
      const defaults = Array.isArray(p.default) ? p.default.map(v => JSON.stringify(v)) : [];
      itemOpts.forEach((o, i) => { const op = el('option', { value: String(i) }, o.label); if (defaults.includes(JSON.stringify(o.value))) op.selected = true; input.appendChild(op); });
      readers[name] = () => { const v = [...input.selectedOptions].map(o => itemOpts[Number(o.value)].value); return v.length || required.has(name) ? v : undefined; };
    } else if (t === 'number' || t === 'integer') {
      // A text box, not <input type=number>: that one reads "" for text that is not a number, so "abc" came back as
      // "Required.". What was typed goes to the host as typed when it is not a number, and the host says so.
      input = el('input', { type: 'text', id, inputmode: t === 'integer' ? 'numeric' : 'decimal', 'data-kind': t });
      if (typeof p.default === 'number') input.value = String(p.default);
      readers[name] = () => {
        const text = input.value.trim();
        if (text === '') return undefined;
        const n = Number(text);
        return Number.isFinite(n) ? n : input.value;
      };
    } else if (t === 'string' || t === undefined) {
      input = el('input', { type: 'text', id });
      if (typeof p.default === 'string') input.value = p.default;
      // Empty is left out, required or not: an empty required field is "Required." (Raw JSON sends "" if it must be).
      readers[name] = () => (input.value === '' ? undefined : input.value);
    } else {
      input = el('textarea', { id, placeholder: `JSON ${t}` });
      if (p.default !== undefined) input.value = JSON.stringify(p.default, null, 2);
      readers[name] = () => { if (input.value.trim() === '') return undefined; try { return JSON.parse(input.value); } catch { return { __invalidJson: input.value }; } };
    }
    box.appendChild(input);
    const error = el('div', { class: 'error', id: id + '-error' });
    errorOf.set(name, error);
    box.appendChild(error);
    fields.appendChild(box);
  }

  const value = () => { const out = {}; for (const k of Object.keys(readers)) { const v = readers[k](); if (v !== undefined) out[k] = v; } return out; };
  const buttons = el('div', { class: 'buttons' });
  const submit = el('button', { type: 'submit', id: 'submit' }, 'Submit');
  const toggle = el('button', { type: 'button', class: 'secondary', id: 'toggle-raw' }, 'Raw JSON');
  const cancel = el('button', { type: 'button', class: 'secondary', id: 'cancel' }, 'Cancel');
  buttons.append(submit, toggle, cancel);
  if (spec.decline) { const d = el('button', { type: 'button', class: 'secondary', id: 'decline' }, 'Decline'); d.onclick = () => vscode.postMessage({ type: 'decline' }); buttons.append(d); }
  form.appendChild(buttons);
  let rawMode = false;
  /** The host's last answer: { errors: field → message ('' for the whole value), list: [{ path, message }] }. */
  let last = { errors: {}, list: [] };
  // Errors are shown in the mode the user is in: under each field, or as a list under the JSON.
  const showErrors = () => {
    for (const n of errorOf.values()) n.textContent = '';
    general.textContent = '';
    rawErrors.replaceChildren();
    rawErrors.hidden = true;
    if (rawMode) {
      for (const e of last.list) rawErrors.appendChild(el('li', {}, e.path ? `${e.path}: ${e.message}` : String(e.message)));
      rawErrors.hidden = !last.list.length;
      return;
    }
    const errors = last.errors || {};
    const generalLines = [];
    for (const k of Object.keys(errors)) {
      const n = k === '' ? undefined : errorOf.get(k);
      if (n) n.textContent = String(errors[k]); else generalLines.push(k === '' ? String(errors[k]) : `${k}: ${errors[k]}`);
    }
    general.textContent = generalLines.join('\n');
    const firstError = [...errorOf.values()].find(n => n.textContent);
    if (firstError) firstError.previousElementSibling?.focus?.();
  };
  toggle.onclick = () => {
    rawMode = !rawMode;
    if (rawMode) raw.value = JSON.stringify(value(), null, 2);
    fields.hidden = rawMode; raw.hidden = !rawMode;
    toggle.textContent = rawMode ? 'Form' : 'Raw JSON';
    showErrors();
  };
  cancel.onclick = () => vscode.postMessage({ type: 'cancel' });
  form.onsubmit = e => { e.preventDefault(); vscode.postMessage(rawMode ? { type: 'raw', text: raw.value } : { type: 'submit', value: value() }); };
  window.addEventListener('message', e => {
    const m = e.data;
    // (VS Code delivers the extension's messages with a source that is not window.parent: no sender check is possible
    // here; the page has no frame of its own, and an answer can only change the error text shown.)
    if (!m || m.type !== 'errors') return;
    last = {
      errors: m.errors && typeof m.errors === 'object' ? m.errors : {},
      list: Array.isArray(m.list) ? m.list.filter(x => x && typeof x === 'object').map(x => ({ path: String(x.path ?? ''), message: String(x.message ?? '') })) : [],
    };
    showErrors();
  });
  const first = form.querySelector('input, select, textarea'); if (first) first.focus();
})();
