// The page that frames one MCP App view inside a VS Code webview (src/extension/apps/appPage.ts builds it).
// The view runs in a sandboxed frame (scripts only: an opaque origin, no access to this page, the editor or
// the extension); this page relays the view's JSON-RPC messages to and from the extension host, where the
// MCP Apps bridge runs, and reports the editor's theme and the panel's size. Nothing here trusts the view.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const frame = document.getElementById('app');
  const banner = document.getElementById('banner');
  const bannerText = document.getElementById('banner-text');
  const bannerButton = document.getElementById('banner-button');
  // The caps, from the extension (src/mcp/limits.ts VIEW_LIMITS, in this page's markup); these defaults are the same.
  const limits = (() => { try { return JSON.parse(document.body.dataset.limits || '{}'); } catch { return {}; } })();
  const cap = (k, d) => (typeof limits[k] === 'number' && limits[k] > 0 ? limits[k] : d);
  const MAX_CHARS = cap('maxChars', 4 * 1024 * 1024);
  // What this page may say, made by the extension in the editor's language (appPage.ts pageStrings, in this page's
  // markup): no text a person reads is written here (test/unit/l10n.pages.test.ts, H632). A missing one is its key.
  const strings = (() => { try { return JSON.parse(document.body.dataset.strings || '{}'); } catch { return {}; } })();
  const say = k => (typeof strings[k] === 'string' ? strings[k] : k);
  let minHeight = 0;

  const css = name => getComputedStyle(document.body).getPropertyValue(name).trim();
  const first = (...names) => { for (const n of names) { const v = css(n); if (v) return v; } return ''; };

  // The spec's style variables from the editor's theme colours (--vscode-*), computed here where they exist.
  function theme() {
    const c = document.body.classList;
    const kind = c.contains('vscode-light') || c.contains('vscode-high-contrast-light') ? 'light' : 'dark';
    const v = {
      '--color-background-primary': first('--vscode-editor-background'),
      '--color-background-secondary': first('--vscode-sideBar-background', '--vscode-editor-background'),
      '--color-background-tertiary': first('--vscode-input-background'),
      '--color-background-inverse': first('--vscode-editor-foreground'),
      '--color-background-info': first('--vscode-inputValidation-infoBackground'),
      '--color-background-danger': first('--vscode-inputValidation-errorBackground'),
      '--color-background-warning': first('--vscode-inputValidation-warningBackground'),
      '--color-background-disabled': first('--vscode-disabledForeground'),
      '--color-text-primary': first('--vscode-editor-foreground', '--vscode-foreground'),
      '--color-text-secondary': first('--vscode-descriptionForeground'),
      '--color-text-tertiary': first('--vscode-disabledForeground'),
      '--color-text-inverse': first('--vscode-editor-background'),
      '--color-text-info': first('--vscode-textLink-foreground'),
      '--color-text-danger': first('--vscode-errorForeground'),
      '--color-text-success': first('--vscode-testing-iconPassed'),
      '--color-text-warning': first('--vscode-editorWarning-foreground'),
      '--color-text-disabled': first('--vscode-disabledForeground'),
      '--color-border-primary': first('--vscode-panel-border', '--vscode-widget-border', '--vscode-contrastBorder'),
      '--color-border-secondary': first('--vscode-input-border', '--vscode-widget-border'),
      '--color-ring-primary': first('--vscode-focusBorder'),
      '--font-sans': first('--vscode-font-family'),
      '--font-mono': first('--vscode-editor-font-family'),
      '--font-text-md-size': first('--vscode-font-size'),
    };
    for (const k of Object.keys(v)) if (!v[k]) delete v[k];
    return { theme: kind, variables: v };
  }
  const size = () => ({ width: window.innerWidth, height: window.innerHeight });
  const fit = () => { frame.style.height = Math.max(window.innerHeight - (banner.hidden ? 0 : banner.offsetHeight) - 4, minHeight) + 'px'; };

  // Who may send control messages: only the extension, whose messages the webview's host document (this page's
  // real parent) posts to this window. VS Code's webview replaces `window.parent` (and tries `frameElement`) in this
  // document, so the real parent is found once, now, before the view exists: through the frame element, else as
  // the window among top's frames one of whose frames is this one. Everything else — the view's frame, anything
  // nested in it (`parent.parent.postMessage`), other windows — is at most untrusted data.
  const extension = (function () {
    try {
      const fe = window.frameElement;
      if (fe && fe.ownerDocument && fe.ownerDocument.defaultView && fe.contentWindow === window) return { w: fe.ownerDocument.defaultView, how: 'frameElement' };
    } catch { /* cross-origin: search below */ }
    try {
      const queue = [window.top];
      for (let n = 0; queue.length && n < 500; n++) {
        const w = queue.shift();
        for (let i = 0; i < w.length; i++) { if (w[i] === window) return { w, how: 'frames' }; queue.push(w[i]); }
      }
    } catch { /* not found */ }
    return { w: window.parent !== window ? window.parent : null, how: 'parent' };
  })();
  const fromExtension = event => extension.w !== null && event.source === extension.w && event.origin === window.location.origin;

  // A view is bounded like a server: messages and characters per second (bursts up to twice that); over the budget
  // its messages are refused here, before they cost the extension host anything (a request gets a JSON-RPC error, a
  // notification is dropped), and the extension is told once per burst.
  const budget = (rate) => { let tokens = 2 * rate, at = performance.now(); return n => { const t = performance.now(); tokens = Math.min(2 * rate, tokens + (t - at) / 1000 * rate); at = t; if (tokens < n) return false; tokens -= n; return true; }; };
  const messages = budget(cap('messagesPerSecond', 100));
  const chars = budget(cap('charsPerSecond', 4 * 1024 * 1024));
  let dropped = 0;
  // What goes to the extension host is relayed in parts of at most PART characters, with at most IN_FLIGHT
  // characters not yet acknowledged by the extension (it acknowledges what it took in): the extension host never
  // has more than that of this view's text to take in at once. What waits here is bounded too (QUEUED).
  const PART = cap('part', 256 * 1024);
  const IN_FLIGHT = cap('inFlight', 512 * 1024);
  const QUEUED = cap('queued', 8 * 1024 * 1024);
  const queue = [];
  let queuedChars = 0;
  let inFlight = 0;
  let nextId = 0;
  const pump = () => {
    while (queue.length && (inFlight === 0 || inFlight + queue[0].text.length <= IN_FLIGHT)) {
      const p = queue.shift();
      queuedChars -= p.text.length;
      inFlight += p.text.length;
      vscode.postMessage(p);
    }
  };
  const relay = text => {
    const id = ++nextId;
    const parts = Math.max(1, Math.ceil(text.length / PART));
    for (let i = 0; i < parts; i++) queue.push({ type: 'app', id, part: i, parts, text: text.slice(i * PART, (i + 1) * PART) });
    queuedChars += text.length;
    pump();
  };
  // A refusal the view can read: its request answered with a JSON-RPC error (a notification has nobody to tell).
  const refuse = (data, why) => {
    if (!data || typeof data !== 'object' || typeof data.method !== 'string' || !('id' in data) || !frame.contentWindow) return;
    const id = data.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    try { frame.contentWindow.postMessage({ jsonrpc: '2.0', id, error: { code: -32000, message: why } }, '*'); } catch { /* gone */ }
  };

  window.addEventListener('message', event => {
    if (event.source === frame.contentWindow) {
      // From the view: relayed as JSON text, bounded; the extension host checks it is JSON-RPC (and the bounds again).
      const data = event.data;
      if (!messages(1)) { refuse(data, say('tooFast')); if (dropped++ === 0) vscode.postMessage({ type: 'dropped' }); return; }
      let text;
      try { text = JSON.stringify(data); } catch { return; }
      if (typeof text !== 'string') return;
      if (text.length > MAX_CHARS) { refuse(data, say('tooLarge')); return; }
      if (queuedChars + text.length > QUEUED || !chars(text.length)) {
        refuse(data, say('tooMuch'));
        if (dropped++ === 0) vscode.postMessage({ type: 'dropped' });
        return;
      }
      if (dropped) { vscode.postMessage({ type: 'dropped', count: dropped }); dropped = 0; }
      relay(text);
      return;
    }
    if (!fromExtension(event)) return;
    const m = event.data;
    if (!m || typeof m !== 'object' || typeof m.type !== 'string') return;
    switch (m.type) {
      case 'ack':
        if (typeof m.chars === 'number' && m.chars >= 0) { inFlight = Math.max(0, inFlight - m.chars); pump(); }
        break;
      case 'app':
        if (frame.contentWindow) { try { frame.contentWindow.postMessage(JSON.parse(m.text), '*'); } catch { /* not JSON: dropped */ } }
        break;
      case 'size':
        if (typeof m.height === 'number' && m.height > 0 && m.height < 100000) { minHeight = m.height; fit(); }
        break;
      case 'banner':
        banner.hidden = !m.text;
        bannerText.textContent = m.text || '';
        bannerButton.hidden = !m.action;
        bannerButton.textContent = m.action || '';
        fit();
        break;
      case 'probe':
        // What this page shows now, for the extension's tests: the banner, the frame's title and permissions, the
        // policies, and the strings it was given.
        vscode.postMessage({
          type: 'probe', banner: banner.hidden ? '' : bannerText.textContent, title: frame.getAttribute('title') || '', strings,
          allow: frame.getAttribute('allow') || '',
          sandbox: frame.getAttribute('sandbox') || '', srcdocChars: (frame.getAttribute('srcdoc') || '').length,
          csp: [...document.querySelectorAll('meta[http-equiv="Content-Security-Policy"]')].map(x => x.getAttribute('content')),
        });
        break;
    }
  });
  bannerButton.addEventListener('click', () => vscode.postMessage({ type: 'action', action: bannerButton.textContent }));
  window.addEventListener('resize', () => { fit(); vscode.postMessage({ type: 'resize', ...size() }); });
  new MutationObserver(() => vscode.postMessage({ type: 'theme', ...theme() })).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  // The view's document is part of this page as generated by the extension (with its policy, and the frame's `allow`
  // and CSP fixed in the markup above): nothing a message says changes them.
  const view = document.getElementById('view-html');
  if (view) { try { frame.srcdoc = JSON.parse(view.textContent); } catch { /* no view */ } }
  fit();
  vscode.postMessage({ type: 'ready', ...theme(), ...size(), hasView: !!view, sender: extension.how });
})();
