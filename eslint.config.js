// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Only config/ reads the environment; nothing below src/ imports the HTTP layer but app.ts and the CLI.
    files: ['src/**/*.ts'],
    ignores: ['src/config/**'],
    rules: {
      // Output goes through the logger (or, in the CLI, process.stdout/stderr on purpose).
      'no-console': 'error',
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config.' }],
    },
  },
  {
    files: ['src/domain/**/*.ts', 'src/services/**/*.ts', 'src/store/**/*.ts', 'src/vault/**/*.ts', 'src/gateways/**/*.ts', 'src/receivers/**/*.ts', 'src/certificates/**/*.ts', 'src/limits/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/http/**', '**/http/*'], message: 'Nothing imports the HTTP layer.' }] }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
