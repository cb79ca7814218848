/**
 * `mcp-host doctor`: every enabled server of the configuration started at once and reported in its order (where its
 * command resolves, its server info, protocol, capabilities and counts, or why it failed with its stderr tail), the
 * configuration's errors and warnings, and the envFile's bad lines (never a value). Exit 0 all well, 1 a server
 * failed, 2 the configuration has errors.
 */
import { loadEnvironment, type ServerDefinition, redactorFor, protocolLabel } from '../mcp';
import { FailureError, type ParsedArgs } from './args';
import { describeCapabilities, describeCounts } from './format';
import { ownText } from './output';
import { COMPILE_ALL, catalogueOf, configErrorLine, startOne, withHost, withTimeout, type CliRuntime } from './commandHost';

/** How the doctor marks a server that runs in the OS sandbox (H93). */
export const SHIELD = '🛡 sandboxed';

/**
 * The doctor's lines for a stdio server's envFile problems: each bad line by number and what is wrong (an unclosed
 * quote, a bad variable name, no `=`), from `loadEnvironment`, the one parser the launch uses; never a value. An
 * envFile that cannot be read at all is the launch's error, reported with the server.
 */
async function envFileProblems(def: ServerDefinition): Promise<string[]> {
  if (def.type !== 'stdio' || !def.envFile) return [];
  const r = await loadEnvironment(def, {});
  return r.error ? [] : r.warnings.map(w => `    ! ${w.message}`);
}

export async function doctor(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const cfg = await rt.loadConfig(args);
  rt.out(`config: ${cfg.file}`);
  for (const e of cfg.errors) rt.out(ownText(`✗ ${configErrorLine(cfg.file, e)}`, 4096));
  for (const w of cfg.warnings ?? []) rt.out(ownText(`! ${w}`, 4096));
  const defs = cfg.definitions.filter(d => !d.disabled).map(d => withTimeout(d, args.timeout));
  for (const d of cfg.definitions.filter(d => d.disabled)) rt.out(ownText(`- ${d.name}: disabled, skipped`));
  if (!defs.length && !cfg.errors.length) rt.out('no servers configured');

  let failures = 0;
  await withHost(rt, defs, async host => {
    // Start everything at once; report in configuration order.
    const results = await Promise.all(defs.map(async def => {
      const lines: string[] = [];
      let ok = true;
      let where = def.type === 'stdio' ? '' : ` ${redactorFor(def).url(def.url)}`;
      // The envFile's bad lines (line number and what is wrong, never a value), by the parser the launch uses.
      const envProblems = await envFileProblems(def);
      if (def.type === 'stdio') {
        try {
          const r = await rt.resolveCommand(def);
          where = ` ${r.path} (via ${r.via})`;
        } catch (err) {
          return { ok: false, lines: [`✗ ${def.name} (stdio): ${ownText(err instanceof Error ? err.message : String(err))}`, ...envProblems] };
        }
      }
      const handle = host.get(def.name);
      try {
        if (!handle) throw new Error('not created by the host');
        await startOne(host, def.name, rt);
        const s = handle.state;
        if (s.kind !== 'running') throw new Error(`state is ${s.kind}`);
        const cat = await catalogueOf(handle);
        lines.push(`✓ ${def.name} (${def.type})${where}${handle.sandboxed ? ` ${SHIELD}` : ''}`);
        lines.push(`    server ${s.serverInfo.name} ${s.serverInfo.version}, ${protocolLabel(s.protocolVersion)}`);
        lines.push(`    capabilities: ${describeCapabilities(s.capabilities)}`);
        lines.push(`    ${describeCounts(cat)}`);
      } catch (err) {
        ok = false;
        const msg = err instanceof FailureError ? err.message.replace(/^server "[^"]*" failed to start: /, '') : err instanceof Error ? err.message : String(err);
        lines.push(`✗ ${def.name} (${def.type})${where}${handle?.sandboxed ? ` ${SHIELD}` : ''}`);
        lines.push(...msg.split('\n').map(l => `    ${l.trimStart() === l ? l : l.slice(2)}`));
      }
      lines.push(...envProblems);
      return { ok, lines };
    }));
    for (const r of results) {
      if (!r.ok) failures++;
      for (const l of r.lines) rt.out(ownText(l));
    }
  }, args.verbose, undefined, COMPILE_ALL);
  const total = defs.length;
  rt.out(`${total - failures} of ${total} server${total === 1 ? '' : 's'} OK${cfg.errors.length ? `, ${cfg.errors.length} configuration error${cfg.errors.length === 1 ? '' : 's'}` : ''}`);
  if (cfg.errors.length) return 2;
  return failures ? 1 : 0;
}
