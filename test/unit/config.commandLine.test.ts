/** Server definitions from a typed command line (MCP: Add Server…). */
import * as assert from 'node:assert/strict';
import { definitionFromCommandLine, guessServerName } from '../../src/mcp/config';

describe('config: command lines', () => {
  it('keeps quoted arguments together (a path with spaces stays one argument)', () => {
    assert.deepEqual(definitionFromCommandLine(`node "/home/me/My Servers/weather.js" --units 'metric system'`), {
      name: 'weather',
      definition: { type: 'stdio', command: 'node', args: ['/home/me/My Servers/weather.js', '--units', 'metric system'] },
    });
  });

  it('names a server after what is launched, not the runner, a flag or a trailing folder', () => {
    const cases: [string, string][] = [
      ['npx -y @modelcontextprotocol/server-filesystem ${workspaceFolder}', 'filesystem'],
      ['npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio', 'everything'],
      ['uvx mcp-server-fetch', 'fetch'],
      ['python -m mcp_server_git --repository .', 'git'],
      ['docker run -i --rm mcp/github', 'github'],
      ['/opt/tools/weather-mcp', 'weather'],
      ['C:\\tools\\notes-server.exe', 'notes'],
      ['npx', 'npx'],
    ];
    for (const [line, name] of cases) assert.equal(definitionFromCommandLine(line)?.name, name, line);
  });

  it('an empty line gives no definition; a name is never empty', () => {
    assert.equal(definitionFromCommandLine('   '), undefined);
    assert.equal(guessServerName(['${env:SERVER}']), 'server');
  });
});
