// The user-facing strings of package.json, one list for scripts/l10n/extract-nls.mjs (which moves them into
// package.nls.json) and test/unit/lint.l10n.test.ts (H491, which fails when one is literal). Each entry names the
// object and field holding the string and the package.nls.json key it gets.

/** Fields whose string (or array of strings) a person reads. */
export const USER_FACING_KEYS = ['displayName', 'description', 'markdownDescription', 'enumDescriptions',
  'markdownEnumDescriptions', 'deprecationMessage', 'markdownDeprecationMessage', 'title', 'shortTitle', 'category',
  'name', 'contextualTitle', 'contents', 'fullName', 'userDescription', 'label', 'altText'];

/** The walkthrough step media fields that name a page (a path per language), not text. */
export const WALKTHROUGH_PAGE_FIELDS = ['markdown'];

/** Settings whose nested schema is generated from src/mcp/config/schema.ts (English-only core; see docs). */
const CORE_SCHEMA_SETTINGS = new Set(['mcpHost.servers', 'mcpHost.inputs']);

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
    for (const [name, prop] of Object.entries(conf.properties ?? {})) schemaStrings(prop, `config.${name}`, !CORE_SCHEMA_SETTINGS.has(name));
  }
  function schemaStrings(node, key, nested) {
    if (!node || typeof node !== 'object') return;
    fields(node, key, ['description', 'markdownDescription', 'enumDescriptions', 'markdownEnumDescriptions', 'deprecationMessage', 'markdownDeprecationMessage']);
    if (!nested) return;
    for (const [n, child] of Object.entries(node.properties ?? {})) schemaStrings(child, `${key}.${n}`, true);
    if (node.items && !Array.isArray(node.items)) schemaStrings(node.items, `${key}.items`, true);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') schemaStrings(node.additionalProperties, `${key}.additionalProperties`, true);
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
