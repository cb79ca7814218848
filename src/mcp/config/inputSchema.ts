/**
 * `mcpHost.inputs` (and the `inputs` of an `mcp.json`): the values server definitions refer to as `${input:id}`,
 * asked for once and kept in secret storage. Part of the settings document's schema (schema.ts `configSchema`).
 */

/** One entry of `mcpHost.inputs`. */
export const inputSchema = {
  type: 'object',
  markdownDescription: 'A value the host asks you for the first time a server needs it (`${input:id}`), then keeps in secret storage.',
  defaultSnippets: [
    { label: 'promptString', body: { id: '${1:api-token}', type: 'promptString', description: '${2:API token}', password: true } },
  ],
  properties: {
    id: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.-]+$',
      patternErrorMessage: 'Use letters, digits, `_`, `.` and `-` only.',
      markdownDescription: 'The name used in `${input:id}`.',
      examples: ['github-token'],
    },
    type: {
      type: 'string',
      enum: ['promptString'],
      enumDescriptions: ['Ask for a string (optionally hidden as a password).'],
      markdownDescription: 'The kind of input. Only `promptString` is supported.',
    },
    description: {
      type: 'string',
      markdownDescription: 'The prompt shown when the host asks for the value.',
    },
    password: {
      type: 'boolean',
      default: false,
      markdownDescription: 'Hide what you type.',
    },
    default: {
      type: 'string',
      markdownDescription: 'The value offered when asking.',
    },
  },
  required: ['id', 'type'],
  additionalProperties: false,
} as const;

/** `mcpHost.inputs`. */
export const inputsSchema = {
  type: 'array',
  default: [],
  markdownDescription: 'Values that server definitions refer to as `${input:id}`, such as API keys; asked for once and stored in secret storage.',
  items: inputSchema,
} as const;
