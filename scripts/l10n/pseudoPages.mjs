// The walkthrough's pages in a pseudo-locale, for the editor tests' pseudo-locale pass only (issue 40, H631).
//
// A walkthrough step names its page through a `%key%` of package.nls.json (scripts/l10n/manifestStrings.mjs,
// WALKTHROUGH_PAGE_FIELDS); a translation ships its page beside the English one as `<page>.<lang>.md` and names it
// under the same key in its package.nls.<lang>.json (docs/DEVELOPMENT.md, "Localisation"). This does that for a
// pseudo-locale in a copy of the unpacked VSIX (scripts/editor/run-editor-tests.mjs, after `vscode-l10n-dev
// generate-pseudo` wrote package.nls.<locale>.json, where it pseudo-localised the page paths themselves into names of
// no file): each page's prose goes through the same pseudo transform (`getL10nPseudoLocalized` of @vscode/l10n-dev),
// its code (fenced blocks, code spans) and link targets stay as they are, and the key names the pseudo page.
// The VSIX itself carries the English pages only (.vscodeignore ships media/**, and nothing here writes there).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { manifestStrings, WALKTHROUGH_PAGE_FIELDS } from './manifestStrings.mjs';

const require = createRequire(import.meta.url);
const { getL10nPseudoLocalized } = require('@vscode/l10n-dev');

/** What stays as written in a page: fenced code blocks, code spans, and a link's or picture's target. */
const KEPT = /```[\s\S]*?```|`[^`\n]*`|\]\([^)\n]*\)/g;

/** A Markdown page with its prose pseudo-localised and its code and link targets kept. */
export function pseudoPage(markdown) {
  const parts = [];
  let at = 0;
  for (const m of markdown.matchAll(KEPT)) {
    parts.push({ prose: markdown.slice(at, m.index) }, { kept: m[0] });
    at = m.index + m[0].length;
  }
  parts.push({ prose: markdown.slice(at) });
  const prose = Object.fromEntries(parts.map((p, i) => [String(i), p.prose]).filter(([, t]) => t));
  const pseudo = getL10nPseudoLocalized(prose);
  return parts.map((p, i) => p.kept ?? (p.prose ? pseudo[String(i)] : '')).join('');
}

/** `media/walkthrough/add-server.md` → `media/walkthrough/add-server.qps-ploc.md`: a translation's page, beside the English one. */
export function localePagePath(englishPage, locale) {
  const ext = path.posix.extname(englishPage);
  return `${englishPage.slice(0, englishPage.length - ext.length)}.${locale}${ext}`;
}

/**
 * In `extensionDir` (a copy of the unpacked VSIX whose package.nls.<locale>.json exists): writes the pseudo page of
 * every walkthrough page beside the English one and names it in package.nls.<locale>.json. Returns the pages written
 * (relative to `extensionDir`).
 */
export function writePseudoPages(extensionDir, locale) {
  const read = rel => JSON.parse(fs.readFileSync(path.join(extensionDir, rel), 'utf8'));
  const nls = read('package.nls.json');
  const localeFile = `package.nls.${locale}.json`;
  const localised = read(localeFile);
  const written = [];
  for (const { field, value } of manifestStrings(read('package.json'))) {
    if (!WALKTHROUGH_PAGE_FIELDS.includes(field)) continue;
    const key = /^%([\w.-]+)%$/.exec(value)?.[1];
    if (!key || typeof nls[key] !== 'string') throw new Error(`walkthrough page ${value}: not a %key% of package.nls.json (run node scripts/l10n/extract-nls.mjs)`);
    const page = localePagePath(nls[key], locale);
    fs.writeFileSync(path.join(extensionDir, page), pseudoPage(fs.readFileSync(path.join(extensionDir, nls[key]), 'utf8')));
    localised[key] = page;
    written.push(page);
  }
  fs.writeFileSync(path.join(extensionDir, localeFile), JSON.stringify(localised, null, 2) + '\n');
  return written;
}
