/**
 * Issue 42's five-step task (list the files, read the first three, summarise them, write the summary), shared by the
 * benchmark (bench/codemodeTokens.ts) and the editor test (test/editor/codemode.test.ts): the summary a model writes
 * by direct calls, and the one program that does all five steps against a server-filesystem server named `files`.
 */

/** The summary both ways produce: each file's first line and its line count. */
export const summarise = (files: { name: string; text: string }[]) => files.map(f => `${f.name}: ${f.text.split('\n').length} lines, starts ${JSON.stringify(f.text.split('\n')[0])}`).join('\n');

/** The program of the task on `root` (its value is the summary, also written to `root`/summary.txt). */
export const fiveStepProgram = (root: string) => `
const listing = await mcp.files.list_directory({ path: ${JSON.stringify(root)} });
const names = [...String(listing.content ?? listing).matchAll(/\\[FILE\\] (\\S+)/g)].map(m => m[1]).sort().slice(0, 3);
const files = await Promise.all(names.map(async name => {
  const r = await mcp.files.read_text_file({ path: ${JSON.stringify(root)} + "/" + name });
  return { name, text: String(r.content ?? r) };
}));
const summary = files.map(f => f.name + ": " + f.text.split("\\n").length + " lines, starts " + JSON.stringify(f.text.split("\\n")[0])).join("\\n");
await mcp.files.write_file({ path: ${JSON.stringify(root)} + "/summary.txt", content: summary });
return summary;`;
