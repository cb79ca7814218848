/**
 * The CLI's protocol-era verdict cache (H123; src/mcp/server/eraVerdicts.ts): a small JSON file in the user's cache
 * directory, `$MCP_HOST_ERA_CACHE`, else `$XDG_CACHE_HOME/mcp-host/era-verdicts.json` (~/.cache by default);
 * `MCP_HOST_ERA_CACHE=off` turns it off. It holds definition keys (HMACs under the installation key in the 0600 file
 * `installation-key` beside it) and a date each, nothing of a definition.
 * Read once per run, written (mode 0600, through a temporary file) when a verdict changes; a file that cannot be
 * read or written only costs the probe.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EraVerdicts, definitionKeyer, isInstallationKey, newInstallationKey, type DefinitionKey, writeFileAtomicSync } from '../mcp';

/** Where the cache lives, or undefined when it is turned off. */
export function eraCachePath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const v = env.MCP_HOST_ERA_CACHE;
  if (v === 'off') return undefined;
  if (v) return path.resolve(v);
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'mcp-host', 'era-verdicts.json');
}

/** The verdicts kept in `file` (see the header). */
export function fileEraVerdicts(file: string): EraVerdicts {
  let stored: unknown;
  try {
    const text = fs.readFileSync(file, 'utf8');
    // A cache of at most a few hundred short entries: anything far larger is not ours.
    if (text.length < 1024 * 1024) stored = JSON.parse(text);
  } catch {
    stored = undefined;
  }
  return new EraVerdicts(stored, data => {
    try {
      if (!data) {
        fs.rmSync(file, { force: true });
        return;
      }
      writeFileAtomicSync(file, `${JSON.stringify(data)}\n`, { mode: 0o600, dirMode: 0o700 });
    } catch {
      // Only a cache: the next run probes again.
    }
  });
}

/** The CLI's installation key (config/definitionKey.ts): a 0600 file next to the era cache, what its keys are HMACs under. */
export function installationKeyPath(eraFile: string): string {
  return path.join(path.dirname(eraFile), 'installation-key');
}

/**
 * The definition key under the installation key in `file`; a missing or malformed file gets a new key (written 0600,
 * in a 0700 folder). `created` says so: what the era cache holds then is under the old unsalted keys, re-keyed once.
 * A key that cannot be written is this run's own (the era cache is then only as good as one run).
 */
export function fileInstallationKey(file: string): { key: DefinitionKey; created: boolean } {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (isInstallationKey(text)) return { key: definitionKeyer(text), created: false };
  } catch { /* none yet */ }
  const fresh = newInstallationKey();
  try {
    writeFileAtomicSync(file, `${fresh}\n`, { mode: 0o600, dirMode: 0o700 });
  } catch { /* this run's key only */ }
  return { key: definitionKeyer(fresh), created: true };
}
