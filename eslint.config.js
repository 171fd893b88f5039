// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_HTTP = { group: ['**/http/**', '**/http/*'], message: 'Nothing imports the HTTP layer.' };
// Rows, SQL and dialect details stay in src/store (docs/architecture.md): everything else speaks the domain.
const NO_ROWS = [
  { group: ['**/store/schema', '**/store/schema.js'], message: 'Row types stay in src/store: use the domain types of src/domain.' },
  { group: ['**/store/**', '**/store/*'], importNamePattern: '(Row|Table)$', message: 'Row types stay in src/store: use the domain types of src/domain.' },
  { group: ['kysely'], message: 'SQL stays in src/store: call a repository.' },
];

export default tseslint.config(
  // .tmp/ holds scratch output (screenshots, reports, the client generator's bundled document).
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', '.tmp/'] },
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
    // Outside the store. Later blocks repeat these patterns: a later block's options replace an
    // earlier block's for the same rule.
    files: ['src/**/*.ts'],
    ignores: ['src/store/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: NO_ROWS }],
    },
  },
  {
    files: ['src/domain/**/*.ts', 'src/services/**/*.ts', 'src/vault/**/*.ts', 'src/gateways/**/*.ts', 'src/receivers/**/*.ts', 'src/certificates/**/*.ts', 'src/limits/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [NO_HTTP, ...NO_ROWS] }],
    },
  },
  {
    files: ['src/store/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [NO_HTTP] }],
    },
  },
  {
    // Adapters get plaintext in a Secret from the service and return data; they never reach into the
    // vault or the store (docs/gateways/README.md). NO_HTTP again: a later block's options replace an
    // earlier block's for the same rule.
    files: ['src/gateways/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_HTTP,
            { group: ['**/vault/**', '**/vault/*'], message: 'Adapters never import the vault: the service hands them what they need.' },
            { group: ['**/store/**', '**/store/*'], message: 'Adapters never import the store: the service persists.' },
            ...NO_ROWS,
          ],
        },
      ],
    },
  },
  {
    // Transaction states are spelt once, in src/domain/transaction.ts (and in SQL in src/store/):
    // everything else names them by TransactionState / TRANSACTION_STATES. The two states below are
    // checked everywhere; the four that are also everyday words, where transactions are read and shown.
    files: ['src/**/*.ts'],
    ignores: ['src/domain/**', 'src/store/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['gateway_processing_failed', 'gateway_processing_result_unknown'].map((state) => ({
          selector: `Literal[value='${state}']`,
          message: 'Name transaction states from src/domain/transaction.ts (TransactionState).',
        })),
      ],
    },
  },
  {
    files: ['src/http/views/**/*.ts', 'src/portal/routes/transactions.routes.ts', 'src/portal/routes/overview.routes.ts', 'src/services/transactions/**/*.ts', 'src/services/routing/**/*.ts', 'src/services/transaction-records.ts', 'src/services/overview.service.ts'],
    // The same words as other things: call results for the metrics, a reconciliation's outcome, a wire field name.
    ignores: ['src/services/transactions/gateway-caller.ts', 'src/services/transactions/reconciler.ts', 'src/http/views/callback-payload.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['processing', 'pending', 'succeeded', 'failed', 'gateway_processing_failed', 'gateway_processing_result_unknown'].map((state) => ({
          selector: `Literal[value='${state}']`,
          message: 'Name transaction states from src/domain/transaction.ts (TransactionState).',
        })),
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
