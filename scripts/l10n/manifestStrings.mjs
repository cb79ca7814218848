// The user-facing strings of package.json, one list for scripts/l10n/extract-nls.mjs and scripts/sync-schema.mjs
// (which move them into package.nls.json with `moveToNls`) and test/unit/lint.l10n.test.ts (H492, H670: which fail
// when one is literal). Each entry names the object and field holding the string and the package.nls.json key it gets.

/** Fields whose string (or array of strings) a person reads. */
export const USER_FACING_KEYS = ['displayName', 'description', 'markdownDescription', 'enumDescriptions',
  'markdownEnumDescriptions', 'deprecationMessage', 'markdownDeprecationMessage', 'title', 'shortTitle', 'category',
  'name', 'contextualTitle', 'contents', 'fullName', 'userDescription', 'label', 'altText'];

/** The walkthrough step media fields that name a page (a path per language), not text. */
export const WALKTHROUGH_PAGE_FIELDS = ['markdown'];

/**
 * The texts of a setting's JSON schema, at any depth: VS Code shows them in the Settings editor and, for the nested
 * schema of an object setting (`mcpHost.servers`, `mcpHost.inputs`, generated from src/mcp/config/schema.ts), as
 * hovers, completion details and errors in settings.json. `title` is shown in a hover, `patternErrorMessage` and
 * `errorMessage` as a problem's message.
 */
export const SCHEMA_TEXT_FIELDS = ['title', 'description', 'markdownDescription', 'enumDescriptions', 'markdownEnumDescriptions',
  'deprecationMessage', 'markdownDeprecationMessage', 'patternErrorMessage', 'errorMessage'];

/** The texts of a `defaultSnippets` entry shown beside its label (the label, a name, and the body, a value, are not prose). */
export const SNIPPET_TEXT_FIELDS = ['description', 'markdownDescription'];

/** The sub-schemas of a JSON schema, each with the key segment it adds (a property's name, a keyword, an index). */
function subschemas(node) {
  const out = [];
  for (const [n, child] of Object.entries(node.properties ?? {})) out.push([n, child]);
  for (const kw of ['additionalProperties', 'items', 'if', 'then', 'else', 'not', 'contains', 'propertyNames']) {
    const v = node[kw];
    if (Array.isArray(v)) v.forEach((c, i) => out.push([`${kw}.${i}`, c]));
    else if (v && typeof v === 'object') out.push([kw, v]);
  }
  for (const kw of ['anyOf', 'oneOf', 'allOf']) (node[kw] ?? []).forEach((c, i) => out.push([`${kw}.${i}`, c]));
  Object.values(node.patternProperties ?? {}).forEach((c, i) => out.push([`patternProperties.${i}`, c]));
  return out;
}

/** A package.nls.json reference as package.json holds it; group 1 is the key. */
export const NLS_REF = /^%([\w.-]+)%$/;

/** @returns {{ owner: any, field: string|number, key: string, value: string }[]} */
export function manifestStrings(pkg) {
  const out = [];
  const put = (owner, field, key) => {
    const v = owner?.[field];
    if (typeof v === 'string') out.push({ owner, field, key, value: v });
    else if (Array.isArray(v)) v.forEach((s, i) => { if (typeof s === 'string') out.push({ owner: v, field: i, key: `${key}.${i}`, value: s }); });
  };
  const fields = (owner, key, names) => { for (const f of names) put(owner, f, `${key}.${f}`); };
  put(pkg, 'displayName', 'displayName');
  put(pkg, 'description', 'description');
  const c = pkg.contributes ?? {};
  for (const [where, list] of Object.entries(c.viewsContainers ?? {})) for (const v of list) fields(v, `viewsContainers.${where}.${v.id}`, ['title']);
  for (const list of Object.values(c.views ?? {})) for (const v of list) fields(v, `views.${v.id}`, ['name', 'contextualTitle']);
  for (const v of c.viewsWelcome ?? []) fields(v, `viewsWelcome.${v.view}`, ['contents']);
  for (const cmd of c.commands ?? []) {
    fields(cmd, `command.${cmd.command}`, ['title', 'shortTitle']);
    put(cmd, 'category', 'command.category'); // one category for every command
  }
  for (const p of c.chatParticipants ?? []) {
    fields(p, `chatParticipant.${p.id}`, ['fullName', 'description']);
    for (const cmd of p.commands ?? []) fields(cmd, `chatParticipant.${p.id}.${cmd.name}`, ['description']);
  }
  for (const conf of [].concat(c.configuration ?? [])) {
    put(conf, 'title', 'configuration.title');
    for (const [name, prop] of Object.entries(conf.properties ?? {})) schemaStrings(prop, `config.${name}`);
  }
  // A nested text's key is its setting's plus the path to it: property names and keywords (`additionalProperties`,
  // `items`, `anyOf.0` …), then the field, e.g. config.mcpHost.servers.additionalProperties.command.markdownDescription
  // (issue 40). server-schema.json, the mcp.json schema other tools read, keeps its English: only package.json's
  // copy (scripts/sync-schema.mjs) holds the keys.
  function schemaStrings(node, key) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    fields(node, key, SCHEMA_TEXT_FIELDS);
    (Array.isArray(node.defaultSnippets) ? node.defaultSnippets : []).forEach((s, i) => fields(s, `${key}.defaultSnippets.${i}`, SNIPPET_TEXT_FIELDS));
    for (const [segment, child] of subschemas(node)) schemaStrings(child, `${key}.${segment}`);
  }
  for (const t of c.languageModelTools ?? []) fields(t, `languageModelTool.${t.name}`, ['displayName', 'userDescription']);
  for (const m of c.mcpServerDefinitionProviders ?? []) fields(m, `mcpServerDefinitionProvider.${m.id}`, ['label']);
  for (const w of c.walkthroughs ?? []) {
    fields(w, `walkthrough.${w.id}`, ['title', 'description']);
    for (const s of w.steps ?? []) {
      fields(s, `walkthrough.${w.id}.${s.id}`, ['title', 'description']);
      // The page a step shows is localisable too: a translation ships its own page and names it in its
      // package.nls.<lang>.json under this key (docs/DEVELOPMENT.md, "Localisation"; VS Code substitutes `%key%` in
      // every string of the manifest, the media path included). The value is a path, not text.
      if (s.media) fields(s.media, `walkthrough.${w.id}.${s.id}.media`, ['altText', ...WALKTHROUGH_PAGE_FIELDS]);
    }
  }
  for (const [id, sub] of Object.entries(c.submenus ?? {})) fields(sub, `submenu.${sub.id ?? id}`, ['label']);
  return out;
}

/**
 * Moves each literal user-facing string of `pkg` into `nls` and leaves `%key%` in its place (both objects are changed;
 * the callers write them). The one mechanism behind scripts/l10n/extract-nls.mjs (every string; a key whose English
 * differs is refused) and scripts/sync-schema.mjs (`owned`: only the keys it regenerates from the schema; their English
 * is replaced, since the schema is its source, and their keys nothing uses any more are dropped). Returns how many moved.
 * @param {(key: string) => boolean} [owned]
 */
export function moveToNls(pkg, nls, owned) {
  const texts = new Map();
  let moved = 0;
  for (const { owner, field, key, value } of manifestStrings(pkg)) {
    if (NLS_REF.test(value) || (owned && !owned(key))) continue;
    if (!/^[\w.-]+$/.test(key)) throw new Error(`package.json: the text at ${key} cannot get a package.nls.json key (a name with characters other than letters, digits, _ . -): rename it`);
    if (texts.has(key) && texts.get(key) !== value) throw new Error(`package.json: two texts would get the key ${key}: rename one of them`);
    if (!owned && nls[key] !== undefined && nls[key] !== value) throw new Error(`package.nls.json already has ${key} with other text`);
    texts.set(key, value);
    nls[key] = value;
    owner[field] = `%${key}%`;
    moved++;
  }
  if (owned) {
    const used = new Set([...JSON.stringify(pkg).matchAll(/"%([\w.-]+)%"/g)].map(m => m[1]));
    for (const k of Object.keys(nls)) if (owned(k) && !used.has(k)) delete nls[k];
  }
  return moved;
}
