// Lint with type information (issue 37 item 4): a small, deliberate rule set of the mistakes the type
// checker lets through and that cost at run time, not a style guide. test/architecture/lint-config.test.ts
// keeps these rules on.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const unusedVars = { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true };

export default defineConfig(
  { ignores: ['dist/', 'native/', 'data/', 'coverage/', 'test-artifacts/', 'bench/results/', '.tmp/'] },
  {
    // Every TypeScript file tsconfig.json covers, typed by the same program `npm run typecheck` checks.
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // An unawaited promise is a lost error: its rejection reaches no handler.
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise where a boolean or a void callback is expected (an async event handler, `if (promise)`).
      '@typescript-eslint/no-misused-promises': 'error',
      // `await` on a value that is not a promise: a sign the call is not what the author thinks.
      '@typescript-eslint/await-thenable': 'error',
      // A switch over a union names every member; a `default` does not stand in for the ones it forgot.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false }],
      // Dead code goes; a parameter a signature needs but the body does not use is `_`-prefixed.
      '@typescript-eslint/no-unused-vars': ['error', unusedVars],
    },
  },
  {
    // The few JavaScript files (thread entries, bin/, build scripts) have no types to lint with.
    files: ['**/*.js', '**/*.mjs'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { 'no-unused-vars': ['error', unusedVars] },
  },
);
