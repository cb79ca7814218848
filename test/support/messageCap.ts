/**
 * The message-size cap as tests see it, read from its one source (`DEFAULT_LIMITS.maxMessageBytes` in
 * src/mcp/limits.ts, shown by `formatBytes` as every limit message shows it): no test writes its value again (H621,
 * issue 39; test/unit/messageCap.test.ts checks it).
 */
import { DEFAULT_LIMITS, LIMIT_SETTING } from '../../src/mcp/limits';
import { formatBytes } from '../../src/mcp/logging/humanText';

const literally = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The cap as limit messages show it. */
export const MESSAGE_CAP_TEXT = formatBytes(DEFAULT_LIMITS.maxMessageBytes);

/** A RegExp source matching the cap as limit messages show it. */
export const MESSAGE_CAP = literally(MESSAGE_CAP_TEXT);

/** A RegExp source matching "over the limit of <cap> (raise it with the setting `mcpHost.limits.maxMessageBytes`)". */
export const MESSAGE_CAP_HINT = `over the limit of ${MESSAGE_CAP} \\(raise it with the setting \`${literally(LIMIT_SETTING.maxMessageBytes)}\`\\)`;
