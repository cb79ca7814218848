/**
 * The log level of a server's stderr line. Servers write their ordinary logs to stderr (it is the only channel a
 * stdio server has besides the protocol), so a line is info unless it looks like a warning or an error.
 */
import type { LogLevel } from '../types';

const ERROR = /\berr!|\b(error|fatal|panic|exception|traceback|uncaught\w*|unhandled\w*|failed|failure|critical|emerg(ency)?)\b|^\s*at .+:\d+:\d+\)?$/i;
const WARNING = /\b(warn(ing)?|deprecat(ed|ion)|caution)\b/i;

export function stderrLevel(line: string): LogLevel {
  // A level tag the server wrote itself wins ("[INFO] … error count 0" is info).
  const tag = /^\s*(?:\S+\s+){0,2}?[[(<]?(trace|debug|info|notice|warn(?:ing)?|error|err|fatal|critical)[\])>:]/i.exec(line)?.[1]?.toLowerCase();
  if (tag) {
    if (tag === 'trace' || tag === 'debug') return 'debug';
    if (tag === 'info' || tag === 'notice') return 'info';
    if (tag.startsWith('warn')) return 'warning';
    return 'error';
  }
  if (ERROR.test(line)) return 'error';
  if (WARNING.test(line)) return 'warning';
  return 'info';
}
