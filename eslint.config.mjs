// Lint rules. The one that matters most: src/mcp and src/cli never import `vscode` (see ARCHITECTURE).
import tseslint from 'typescript-eslint';

// Class names do not survive minification: the shipped bundle renames them, so a check on `constructor.name` or on
// `.name === 'SomethingError'` passes in development and silently fails in the VSIX. Recognise errors with `instanceof`
// (platform names such as DOMException's 'AbortError' are not renamed and stay allowed).
const noClassNames = [
  { selector: "MemberExpression[property.name='name'][object.property.name='constructor']", message: 'constructor.name is renamed by minification: use instanceof on the exported class.' },
  { selector: "BinaryExpression[right.type='Literal'][right.value=/Error$/][right.value!='AbortError'][right.value!='TimeoutError'][left.property.name='name']", message: 'Error class names are renamed by minification: use instanceof on the exported class.' },
  { selector: "BinaryExpression[left.type='Literal'][left.value=/Error$/][left.value!='AbortError'][left.value!='TimeoutError'][right.property.name='name']", message: 'Error class names are renamed by minification: use instanceof on the exported class.' },
];

// The product speaks MCP through SDK v2 (`@modelcontextprotocol/client`); SDK 1.x stays only for test servers.
const noSdkV1 = { group: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/**'], message: 'src/ uses SDK v2: import from @modelcontextprotocol/client.' };

// Every read of a file the host does not own goes through the one bounded reader (src/mcp/boundedRead.ts): a raw
// readFile/readFileSync/createReadStream of an envFile, a configuration, a key file or a workspace file reads
// /dev/zero or a FIFO until the process dies. The reader itself and the host-owned reads (READ_ALLOWED) may.
const noRawReads = [
  { selector: "CallExpression[callee.property.name=/^(readFile|readFileSync|createReadStream)$/]", message: 'A raw read of a file the host does not own is unbounded: use readBounded/readBoundedSync (src/mcp/boundedRead.ts).' },
  { selector: "CallExpression[callee.name=/^(readFile|readFileSync|createReadStream)$/]", message: 'A raw read of a file the host does not own is unbounded: use readBounded/readBoundedSync (src/mcp/boundedRead.ts).' },
  { selector: "ImportSpecifier[imported.name=/^(readFile|readFileSync|createReadStream)$/]", message: 'A raw read of a file the host does not own is unbounded: use readBounded/readBoundedSync (src/mcp/boundedRead.ts).' },
];

// The files that may read raw: the bounded reader, and the host's own files, each with why it is the host's.
const READ_ALLOWED = [
  'src/mcp/boundedRead.ts', // the one bounded reader
  'src/extension/state/historyStore.ts', // the extension's own history files in its global storage
  'src/cli/eraCache.ts', // the CLI's own era cache (0600, in its own cache folder)
  'src/cli/oauth.ts', // the CLI's own token and client store (0600, in its own config folder)
  'src/mcp/process/processTree.ts', // /proc/<pid>/stat and environ of the host's own children, written by the kernel
  'src/mcp/launch/sandboxRuntime.ts', // the kernel's /proc/sys knobs (unprivileged user namespaces)
];

// The core's public surface is its barrel, src/mcp/index.ts (issue 39): outside src/mcp, an import names `../mcp`, never
// a file inside it. Allowed by their own path: the lazily loaded gateway server (its type; the module is `require`d on
// first use) and the modules one face uses alone, which the barrel would put into every bundle (kept in step with
// OWN_PATH of the script that pointed the imports at the barrel).
const OWN_PATH = ['gateway/httpSession', 'codemode/codeModeEngine', 'catalogue/icons', 'gateway/wire', 'registry/client'];
const throughBarrel = {
  regex: `^(\\.\\./)+mcp/(?!(${OWN_PATH.join('|')})$)`,
  message: 'Outside src/mcp, import the core from its barrel (`../mcp`): src/mcp/index.ts is its public surface; export the name there.',
};

// Files under src/extension and src/views the unit suite loads in plain Node (no editor): a value import of `vscode`
// would fail there, a type import is erased. The list is what the unit suite reaches (test/unit/lint.rooms.test.ts
// checks it stays complete).
export const VSCODE_FREE = [
  'src/extension/trust/addedServers.ts', 'src/extension/trust/registryInstalls.ts', 'src/extension/apps/bridgeHandover.ts', 'src/extension/apps/transport.ts',
  'src/extension/state/catalogueCache.ts', 'src/extension/chat/parse.ts', 'src/extension/chat/render.ts', 'src/extension/chat/taskTurn.ts',
  'src/extension/commands/render.ts', 'src/extension/trust/definitionKeys.ts', 'src/extension/elicitation/form.ts',
  'src/extension/ui/failureNotice.ts', 'src/extension/trust/governor.ts', 'src/extension/trust/grants.ts', 'src/extension/state/historyStore.ts',
  'src/extension/documents/mime.ts', 'src/extension/sampling/describe.ts', 'src/extension/sampling/stopSequences.ts',
  'src/extension/trust/serverTurns.ts', 'src/extension/servers/reasons.ts', 'src/views/commandIds.ts', 'src/views/historyText.ts',
];
const vscodeFree = {
  '@typescript-eslint/no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', allowTypeImports: true, message: 'The unit suite loads this file without an editor: take what it needs from the caller (a type import is fine).' }],
  }],
};

const noVscode = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'src/mcp and src/cli are editor-free: pass what you need in from src/extension.' }],
    patterns: [{ group: ['**/extension/**', '**/views/**'], message: 'The core does not depend on the editor layers.' }, noSdkV1],
  }],
  'no-restricted-syntax': ['error', {
    selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
    message: 'src/mcp and src/cli are editor-free.',
  }, ...noClassNames, ...noRawReads],
};

// Every modal question goes through the consent governor (src/extension/trust/governor.ts) by src/extension/ui/dialogs.ts,
// the one file that shows a modal: a `modal: true` anywhere else would be a dialog no governor can bound.
const noModal = [
  { selector: "Property[key.name='modal'][value.value=true]", message: 'Modal dialogs go through src/extension/ui/dialogs.ts (ask/govern): the consent governor decides whether one may open.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test/fixtures/fake-lm/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'eqeqeq': ['error', 'smart'],
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...noClassNames, ...noModal, ...noRawReads], 'no-restricted-imports': ['error', { patterns: [noSdkV1] }] } },
  { files: ['src/extension/ui/dialogs.ts'], rules: { 'no-restricted-syntax': ['error', ...noClassNames, ...noRawReads] } },
  { files: ['src/mcp/**/*.ts', 'src/cli/**/*.ts'], rules: { ...noVscode, 'no-restricted-syntax': [...noVscode['no-restricted-syntax'], ...noModal] } },
  // Host-owned reads (READ_ALLOWED): the same rules without noRawReads.
  { files: READ_ALLOWED.filter(f => f.startsWith('src/extension/')), rules: { 'no-restricted-syntax': ['error', ...noClassNames, ...noModal] } },
  { files: READ_ALLOWED.filter(f => !f.startsWith('src/extension/')), rules: { 'no-restricted-syntax': ['error', { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: 'src/mcp and src/cli are editor-free.' }, ...noClassNames, ...noModal] } },
  { files: ['src/extension/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [noSdkV1, throughBarrel] }] } },
  { files: ['src/views/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/extension/**'], message: 'views project the core; extension wires them.' }, noSdkV1, throughBarrel] }] } },
  { files: ['src/cli/**/*.ts'], rules: { 'no-restricted-imports': ['error', { ...noVscode['no-restricted-imports'][1], patterns: [...noVscode['no-restricted-imports'][1].patterns, throughBarrel] }] } },
  { files: VSCODE_FREE, rules: vscodeFree },
);
