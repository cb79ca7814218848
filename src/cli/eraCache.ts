/**
 * The CLI's protocol-era verdict cache (H123; src/mcp/server/eraVerdicts.ts): a small JSON file in the user's cache
 * directory, `$MCP_HOST_ERA_CACHE`, else `$XDG_CACHE_HOME/mcp-host/era-verdicts.json` (~/.cache by default);
 * `MCP_HOST_ERA_CACHE=off` turns it off. It holds definition keys (hashes) and a date each, nothing of a definition.
 * Read once per run, written (mode 0600, through a temporary file) when a verdict changes; a file that cannot be
 * read or written only costs the probe.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EraVerdicts } from '../mcp/server/eraVerdicts';

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
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, `${JSON.stringify(data)}\n`, { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch {
      // Only a cache: the next run probes again.
    }
  });
}
