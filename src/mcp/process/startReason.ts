/**
 * The line of a server's stderr tail that explains why it stopped (H192). Runtimes print lines after the cause:
 * Node its `Node.js vNN.NN.N` line, an error's stack frames and properties; npm its `npm error code …`, "A complete log
 * of this run can be found in …" and "Log files were not removed" footers; Python its traceback frames before the
 * exception line. Those are passed over and the exception or error line above them is the reason; the whole tail
 * stays in the log and the error state. Pure and editor-free.
 */

/** Lines a runtime prints after (or around) the cause: never the reason when a better line is there. */
function trailer(line: string): boolean {
  const t = line.trim();
  return t === ''
    || /^Node\.js v\d+\.\d+\.\d+/.test(t)
    || /A complete log of this run can be found in/i.test(t)
    || /^npm (?:ERR!|error|verbose|timing|notice)\s*$/.test(t)
    || /^npm (?:ERR!|error) (?:code|errno|syscall|Log files were not removed|A complete log|\d{3}\s*$)/.test(t)
    || /^npm (?:ERR!|error)\s+\S+\.log$/.test(t)
    || /^Traceback \(most recent call last\):$/.test(t)
    || /^[{}[\]^)(]+$/.test(t)
    || /^\s/.test(line);
}

/** The explaining line of `tail`, or its last line when none stands out (undefined for an empty tail). */
export function startFailureReason(tail: readonly string[]): string | undefined {
  let i = tail.length - 1;
  while (i >= 0 && trailer(tail[i])) i--;
  if (i < 0) return tail.at(-1);
  // npm's error block: its first line that says something (`npm error 404 Not Found - GET …`), not its last.
  const npm = /^npm (?:ERR!|error)\b/;
  if (npm.test(tail[i])) {
    let j = i;
    while (j > 0 && npm.test(tail[j - 1])) j--;
    for (; j <= i; j++) if (!trailer(tail[j])) return tail[j];
  }
  return tail[i];
}

/**
 * Whether a stderr tail shows that the launcher failed before any server ran (npm's error block, such as the 404 of
 * a package that does not exist; a command or module that is not there; an image that cannot be pulled). Such an
 * exit during the `server/discover` probe is no sign of a legacy server, and launching it again for the `initialize`
 * handshake would only repeat the failure and double the wait (issue 38).
 */
export function launcherFailed(tail: readonly string[]): boolean {
  return tail.some(line => {
    const t = line.trim();
    return /^npm (?:ERR!|error) code E[A-Z0-9]+$/.test(t)
      || /^npm (?:ERR!|error) 404\b/.test(t)
      || /(?:^|: )(?:command not found|No such file or directory)$/.test(t)
      || /^Error: Cannot find module '/.test(t)
      || /^(?:ModuleNotFoundError|ImportError): No module named /.test(t)
      || /^error: (?:Failed to (?:fetch|resolve|download)|No solution found|Executable .* not found)/i.test(t)
      || /^(?:Unable to find image|docker: Error response from daemon|Error response from daemon: pull access denied)/.test(t);
  });
}
