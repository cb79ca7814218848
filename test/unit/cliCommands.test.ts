/**
 * The CLI's one command table (issue 39): src/cli/commandTable.ts holds each command's name, usage line, `--help` text and
 * handler; dispatch and `--help` are made from it, and the documents that list the commands must list exactly its rows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI_COMMANDS, USAGE, commandNamed } from '../../src/cli/commandTable';

const ROOT = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const names = () => CLI_COMMANDS.map(c => c.name).sort();

/** The text of a markdown section: from its heading to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `a "${heading}" section`);
  const level = heading.match(/^#+/)![0].length;
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

describe('CLI command table (issue 39)', () => {
  it('H515: the usage list, every --help text and the dispatch come from one row per command', () => {
    assert.equal(new Set(names()).size, CLI_COMMANDS.length, 'command names are unique');
    for (const c of CLI_COMMANDS) {
      assert.ok(USAGE.includes(`\n  ${c.synopsis} `), `the usage list has ${c.synopsis}`);
      assert.ok(USAGE.includes(` ${c.summary}\n`), `the usage list has ${c.name}'s summary`);
      assert.match(c.help, new RegExp(`^usage: mcp-host ${c.name}[ \\n]`), `${c.name}'s --help starts with its usage`);
      assert.equal(commandNamed(c.name), c);
    }
    assert.equal(commandNamed('constructor'), undefined);
    assert.equal(commandNamed('__proto__'), undefined);
    assert.equal(commandNamed(undefined), undefined);
  });

  it('H516: README.md, docs/CLI.md and docs/ARCHITECTURE.md list exactly the commands of the table', () => {
    const readmeCli = section(read('README.md'), '## The command line');
    const inReadme = names().filter(n => readmeCli.includes(`\`${n}\``));
    assert.deepEqual(inReadme, names(), 'README.md "The command line" names every command in backticks');

    const cliDoc = read('docs/CLI.md');
    const listed = [...cliDoc.matchAll(/^\| `mcp-host ([a-z-]+)[^|]*\|/gm)].flatMap(m => {
      const cell = m[0];
      return [...cell.matchAll(/`mcp-host ([a-z-]+)/g)].map(x => x[1]);
    });
    assert.deepEqual([...new Set(listed)].sort(), names(), 'docs/CLI.md has a row for each command and none other');

    const arch = read('docs/ARCHITECTURE.md');
    assert.ok(arch.includes('src/cli/commandTable.ts'), 'docs/ARCHITECTURE.md points at the command table');
  });
});
