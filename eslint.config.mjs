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

const noVscode = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'src/mcp and src/cli are editor-free: pass what you need in from src/extension.' }],
    patterns: [{ group: ['**/extension/**', '**/views/**'], message: 'The core does not depend on the editor layers.' }, noSdkV1],
  }],
  'no-restricted-syntax': ['error', {
    selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
    message: 'src/mcp and src/cli are editor-free.',
  }, ...noClassNames],
};

// Every modal question goes through the consent governor (src/extension/governor.ts) by src/extension/dialogs.ts,
// the one file that shows a modal: a `modal: true` anywhere else would be a dialog no governor can bound.
const noModal = [
  { selector: "Property[key.name='modal'][value.value=true]", message: 'Modal dialogs go through src/extension/dialogs.ts (ask/govern): the consent governor decides whether one may open.' },
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
  { files: ['src/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...noClassNames, ...noModal], 'no-restricted-imports': ['error', { patterns: [noSdkV1] }] } },
  { files: ['src/extension/dialogs.ts'], rules: { 'no-restricted-syntax': ['error', ...noClassNames] } },
  { files: ['src/mcp/**/*.ts', 'src/cli/**/*.ts'], rules: { ...noVscode, 'no-restricted-syntax': [...noVscode['no-restricted-syntax'], ...noModal] } },
  { files: ['src/views/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/extension/**'], message: 'views project the core; extension wires them.' }, noSdkV1] }] } },
);
