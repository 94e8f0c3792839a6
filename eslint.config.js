// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The promise rules are the reason for type-aware linting: a promise nobody awaits loses its error.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // An abort rejects with the signal's reason, which the platform types as any; everything else rejects with an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `const { secret: _secret, ...rest } = value` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Functions that implement a promise-returning interface (`text()`, `json()`, route handlers) are async so
      // that a throw becomes a rejection; the rule would have them lose that.
      '@typescript-eslint/require-await': 'off',
      // `typeof import('…')` stays allowed: vi.mock's importOriginal<typeof import('…')>() is written so.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    // Tests read the answers of a real server as parsed JSON and check their shape with expect(), and the benchmarks
    // read what their child processes print: a wrong shape fails the assertion or the run at once, which is what these
    // rules would only approximate at compile time.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The pages' scripts (mocks/web/*/script.js) run in a browser, not in node: a node global there is a mistake.
    // topupControl is what the control-secret script, run first on each page, gives the others.
    files: ['mocks/web/**/*.js'],
    languageOptions: { globals: { ...globals.browser, topupControl: 'readonly' } },
  },
  {
    // The CommonJS launcher (bin/package.json) is outside the TypeScript project.
    files: ['bin/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: null, program: null },
      sourceType: 'commonjs',
      globals: globals.node,
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
);
