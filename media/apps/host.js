// The page that frames one MCP App view inside a VS Code webview (src/extension/apps/view.ts builds it).
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
  const MAX_CHARS = 4 * 1024 * 1024;
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

  window.addEventListener('message', event => {
    if (event.source === frame.contentWindow) {
      // From the view: relayed as JSON text, bounded; the extension host checks it is JSON-RPC.
      let text;
      try { text = JSON.stringify(event.data); } catch { return; }
      if (typeof text === 'string' && text.length <= MAX_CHARS) vscode.postMessage({ type: 'app', text });
      return;
    }
    const m = event.data;
    if (!m || typeof m !== 'object' || typeof m.type !== 'string') return;
    switch (m.type) {
      case 'load':
        minHeight = 0;
        frame.setAttribute('allow', typeof m.allow === 'string' ? m.allow : '');
        frame.srcdoc = String(m.html);
        fit();
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
    }
  });
  bannerButton.addEventListener('click', () => vscode.postMessage({ type: 'action', action: bannerButton.textContent }));
  window.addEventListener('resize', () => { fit(); vscode.postMessage({ type: 'resize', ...size() }); });
  new MutationObserver(() => vscode.postMessage({ type: 'theme', ...theme() })).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  fit();
  vscode.postMessage({ type: 'ready', ...theme(), ...size() });
})();
