/**
 * Spawning a Windows batch file (`npx.cmd`, `uvx.cmd`…): Node refuses to run `.cmd`/`.bat` without a
 * shell, so they run through `cmd.exe /d /s /c "…"` with every metacharacter escaped, the way the
 * `cross-spawn` package (which the SDK's stdio transport used) does it. Anything else is spawned as is.
 */

const META = /([()\][%!^"`<>&|;, *?])/g;

/** What to pass to `child_process.spawn` for `command args` on this platform. */
export function spawnCommand(command: string, args: readonly string[], platform: NodeJS.Platform = process.platform, comspec = process.env.ComSpec):
  { file: string; args: string[]; windowsVerbatimArguments?: boolean } {
  if (platform !== 'win32' || !/\.(cmd|bat)$/i.test(command)) return { file: command, args: [...args] };
  // npm's .cmd shims re-parse their arguments once more, so their metacharacters are escaped twice.
  const doubleEscape = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i.test(command);
  const line = [escapeCommand(command.replace(/\//g, '\\')), ...args.map(a => escapeArgument(a, doubleEscape))].join(' ');
  return { file: comspec || 'cmd.exe', args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}

function escapeCommand(command: string): string {
  return command.replace(META, '^$1');
}

function escapeArgument(arg: string, doubleEscape: boolean): string {
  // Backslashes before a quote are doubled and the quote escaped; trailing backslashes are doubled.
  let a = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  a = `"${a}"`.replace(META, '^$1');
  return doubleEscape ? a.replace(META, '^$1') : a;
}
