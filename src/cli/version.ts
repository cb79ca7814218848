/** The CLI's client identity (clientInfo in `initialize`). Keep the version in step with package.json. */
export const CLI_NAME = 'mcp-host';
export const CLI_VERSION = '0.1.0';
