// Lint rules. The one that matters most: src/mcp and src/cli never import `vscode` (see ARCHITECTURE).
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'src/mcp and src/cli are editor-free: pass what you need in from src/extension.' }],
    patterns: [{ group: ['**/extension/**', '**/views/**'], message: 'The core does not depend on the editor layers.' }],
  }],
  'no-restricted-syntax': ['error', {
    selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
    message: 'src/mcp and src/cli are editor-free.',
  }],
};

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
  { files: ['src/mcp/**/*.ts', 'src/cli/**/*.ts'], rules: noVscode },
  { files: ['src/views/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/extension/**'], message: 'views project the core; extension wires them.' }] }] } },
);
