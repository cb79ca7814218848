/**
 * The extension's protocol-era verdict cache (H123; src/mcp/server/eraVerdicts.ts), next to the start-up catalogue
 * cache in the workspace state: definition keys (hashes) and a date each, nothing of a resolved definition. A server
 * that answered `initialize` after the `server/discover` probe starts without the probe from then on.
 */
import type * as vscode from 'vscode';
import { EraVerdicts } from '../../mcp';

export const ERA_CACHE_KEY = 'mcpHost.eraVerdicts';

/** The verdicts kept in `memento` (the workspace state). */
export function mementoEraVerdicts(memento: Pick<vscode.Memento, 'get' | 'update'>): EraVerdicts {
  return new EraVerdicts(memento.get<unknown>(ERA_CACHE_KEY), data => { void memento.update(ERA_CACHE_KEY, data); });
}
