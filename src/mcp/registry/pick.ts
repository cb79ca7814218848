/**
 * One registry page as the Browse MCP Servers… quick pick lists it (issue 34): titles and descriptions with no
 * `$(icon)` of the registry's (`iconFreeText`: the editor draws `$(name)` in a pick's label, description and detail),
 * refused entries with serverJson's reason (they cannot be installed), and a note when the page cap
 * (MAX_REGISTRY_ENTRIES) cut entries or entries were not server descriptions. Plain functions, no `vscode`.
 */
import { iconFreeText, shownName } from '../logging/humanText';
import { fromServerJson, type ServerJsonResult } from './serverJson';
import type { RegistryPage } from './client';
import * as l10n from '@vscode/l10n';

/** One line of the registry quick pick. */
export interface PickEntry {
  /** The registry's name of the server (`namespace/name`), '' when the entry has none. */
  registryName: string;
  label: string;
  description: string;
  detail: string;
  /** What serverJson made of the entry; no options: refused, with `refused` saying why. */
  result: ServerJsonResult;
  /** Why the entry cannot be installed (its reasons joined); undefined when it can. */
  refused?: string;
  /** The entry's `version` (at most 64 characters), for the record of a registry install (policy/provenance.ts). */
  version?: string;
}

/** What the quick pick lists for one page: installable entries first, then refused ones; `note` when entries were cut or skipped. */
export function pickEntries(page: RegistryPage): { installable: PickEntry[]; refused: PickEntry[]; note?: string } {
  const installable: PickEntry[] = [];
  const refused: PickEntry[] = [];
  for (const raw of page.servers) {
    const result = fromServerJson(raw);
    const n = (raw as { name?: unknown }).name;
    const registryName = typeof n === 'string' ? n : '';
    const v = (raw as { version?: unknown }).version;
    const version = typeof v === 'string' && v ? { version: shownName(v, 64) } : {};
    const label = iconFreeText(shownName(result.title || registryName || '(no name)', 80));
    const description = iconFreeText(shownName(registryName, 80));
    const why = result.errors.join(' ');
    if (result.options.length) {
      const left = why ? l10n.t(' — some ways to install were refused: {0}', why) : '';
      installable.push({ registryName, label, description, detail: iconFreeText(shownName(`${result.description}${left}`, 300)), result, ...version });
    } else {
      const reason = why || l10n.t('Nothing to install.');
      refused.push({ registryName, label, description: l10n.t('cannot be installed'), detail: iconFreeText(shownName(l10n.t('Refused: {0}', reason), 300)), result, refused: reason });
    }
  }
  const notes = [
    ...(page.note ? [page.note] : []),
    ...(page.skipped ? [`${page.skipped} entr${page.skipped === 1 ? 'y was' : 'ies were'} not a server description and left out.`] : []),
  ];
  return { installable, refused, ...(notes.length ? { note: notes.join(' ') } : {}) };
}
