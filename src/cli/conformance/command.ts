/**
 * `mcp-host conformance <server-url>`: the client mode the conformance suite runs. The scenario name
 * comes from MCP_CONFORMANCE_SCENARIO, its extra data from MCP_CONFORMANCE_CONTEXT (JSON).
 */
import { runScenario, type ScenarioContext } from './client';

export const CONFORMANCE_HELP = `usage: mcp-host conformance <server-url>

Client mode for @modelcontextprotocol/conformance ("conformance client --command 'mcp-host conformance'").
Reads the scenario from MCP_CONFORMANCE_SCENARIO and its context from MCP_CONFORMANCE_CONTEXT.
Exit codes: 0 the scenario ran, 1 it failed, 2 usage error.`;

export async function conformanceCommand(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(CONFORMANCE_HELP);
    return 0;
  }
  const url = args.find(a => !a.startsWith('-'));
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
  if (!url) {
    console.error(`mcp-host conformance: missing <server-url>\n${CONFORMANCE_HELP}`);
    return 2;
  }
  let ctx: ScenarioContext = {};
  if (process.env.MCP_CONFORMANCE_CONTEXT) {
    try {
      ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) as ScenarioContext;
    } catch {
      console.error('mcp-host conformance: MCP_CONFORMANCE_CONTEXT is not valid JSON');
      return 2;
    }
  }
  const log = (line: string): void => { console.log(`[${scenario}] ${line}`); };
  try {
    await runScenario(url, scenario, ctx, log);
    log('done');
    return 0;
  } catch (err) {
    console.error(`mcp-host conformance [${scenario}]: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
