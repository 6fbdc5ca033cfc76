// Lint rules: ESLint's and typescript-eslint's recommended sets (syntax only, not type-aware); no
// eval in any form; type-only imports marked as such; and the markup door (STYLE.md, "Escaping is
// the default"): outside src/views/html.ts nothing calls `raw()` or `new Html()`, renames `raw` on
// import, hands `c.html()` a string it built, or writes `innerHTML`, and in src/views no string
// outside the html tag holds a tag. An exception is an eslint-disable comment whose `-- reason` says
// why it is safe: a disable comment without a reason, or one that disables nothing, is an error.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Markup built around the escaping template tag, wherever it is written. */
const markupDoor = [
  {
    selector: "CallExpression[callee.name='raw'], CallExpression[callee.property.name='raw']",
    message: 'raw() skips escaping: build the markup with the html tag (src/views/html.ts).',
  },
  {
    selector: "ImportSpecifier[imported.name='raw'][local.name!='raw']",
    message: 'Import raw under its own name, so the lint rule and a reviewer can see each call.',
  },
  {
    selector: "NewExpression[callee.name='Html']",
    message: 'new Html() skips escaping: build the markup with the html tag (src/views/html.ts).',
  },
  {
    selector:
      "CallExpression[callee.property.name='html'][arguments.0.type=/^(Literal|TemplateLiteral|BinaryExpression)$/]",
    message: 'c.html() sends a string as it is: pass markup built with the html tag.',
  },
  {
    selector:
      "AssignmentExpression > MemberExpression.left[property.name=/^(inner|outer)HTML$/], CallExpression[callee.property.name='insertAdjacentHTML']",
    message: 'Writing HTML into the DOM skips escaping: build the markup with the html tag.',
  },
];

/** In the views, a tag in a plain string is markup concatenated by hand. */
const noHandMadeMarkup = [
  {
    selector:
      'Literal[value=/<[A-Za-z!\\/]/], TemplateLiteral:not(TaggedTemplateExpression > TemplateLiteral) > TemplateElement[value.raw=/<[A-Za-z!\\/]/]',
    message: 'Markup in a plain string is not escaped: write it in an html`…` template.',
  },
];

/** Every eslint-disable comment says why the rule does not apply there, after ` -- `. */
const disableNeedsReason = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { reason: 'Say why after " -- ": an eslint-disable needs a reason.' },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          if (/^\s*eslint-disable/.test(comment.value) && !/\s--\s+\S/.test(comment.value))
            context.report({ loc: comment.loc, messageId: 'reason' });
        }
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { paddock: { rules: { 'disable-needs-reason': disableNeedsReason } } },
    rules: {
      'no-eval': 'error',
      // Validators deliberately name control characters to refuse them.
      'no-control-regex': 'off',
      'no-implied-eval': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'paddock/disable-needs-reason': 'error',
      'no-restricted-syntax': ['error', ...markupDoor],
    },
  },
  {
    files: ['src/views/**'],
    rules: { 'no-restricted-syntax': ['error', ...markupDoor, ...noHandMadeMarkup] },
  },
  // The door itself: the one module that may turn a string into markup.
  { files: ['src/views/html.ts'], rules: { 'no-restricted-syntax': 'off' } },
);
