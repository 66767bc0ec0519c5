// ESLint: typescript-eslint's type-checked recommended rules on the TypeScript tree, ESLint's
// recommended rules on the plain JavaScript launchers; formatting is Prettier's job (eslint-config-prettier).
// Every regular expression of the tree is held to linear time (docs/SECURITY.md, Text matching).
import path from 'node:path';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import layers from './scripts/lib/layers.cjs';

/** Reports every relative import (static, dynamic, `import x = require`, `import('…')` types) that its file's layer may not make. */
const layerImportsRule = {
  meta: { type: 'problem', schema: [], docs: { description: 'imports follow the layers of scripts/lib/layers.cjs' } },
  create(context) {
    const file = path
      .relative(import.meta.dirname, context.filename)
      .split(path.sep)
      .join('/');
    const check = (node, typeOnly) => {
      const source = node.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const problem = layers.importProblem(file, path.posix.join(path.posix.dirname(file), source), typeOnly);
      if (problem) context.report({ node, message: problem });
    };
    const allTypes = (specifiers) => specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
    return {
      Program(node) {
        const problem = layers.folderProblem(file);
        if (problem) context.report({ node, message: problem });
      },
      ImportDeclaration: (node) => check(node.source, node.importKind === 'type' || allTypes(node.specifiers)),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.exportKind === 'type' || allTypes(node.specifiers)),
      ExportAllDeclaration: (node) => check(node.source, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, false),
      TSImportEqualsDeclaration: (node) => node.moduleReference.type === 'TSExternalModuleReference' && check(node.moduleReference.expression, node.importKind === 'type'),
      TSImportType: (node) => node.argument.type === 'TSLiteralType' && check(node.argument.literal, true),
    };
  },
};

export default tseslint.config(
  // client/schema.d.ts is openapi-typescript's output (npm run openapi:generate), checked by tsc, not written by hand.
  { ignores: ['dist/', 'node_modules/', '.tools/', '.data/', '.run/', 'coverage/', 'client/schema.d.ts'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_name` and `const { secret, ...rest } = row` are how the code says "deliberately left out".
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // The launchers in scripts/lib are CommonJS; `import x = require('….cjs')` is how TypeScript imports them with their types.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['\\.cjs$'] }],
      // `xs[i]!` / `xs[i] as T` mark index reads known to be in range (what noUncheckedIndexedAccess would demand); the rule calls them redundant only because that flag is off.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Handlers, activities and test doubles implement Promise-returning contracts; `async` without `await` keeps a throw a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Where knex rows (no table types are declared) and supertest bodies are `any` by their libraries' types, and Koa's router generics take `any`:
    // typing every row is issue 22's services/queries step; the rest of the tree (workflows, domain, workers, infra, orchestration, scripts) keeps these rules.
    // services/asset-monitoring came from db/ with its statements (monitoring lock, state read, ingest insert), whose rows are knex's `any` too.
    files: ['api/**/*.ts', 'db/**/*.ts', 'services/asset-monitoring/**/*.ts', 'activities/**/*.ts', 'test/**/*.ts', 'demo/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The layers (docs/FEATURES.md), for every TypeScript file of the tree: scripts/lib/layers.cjs
    // says what each top-level folder may import, and a file in a folder it does not name fails.
    files: ['**/*.ts'],
    plugins: { layers: { rules: { imports: layerImportsRule } } },
    rules: { 'layers/imports': 'error' },
  },
  {
    // Text from outside (mail, messages, documents, model answers) reaches many patterns, and a
    // pattern's callers change: every pattern of the tree, whole or a piece of a larger one, is
    // checked for backtracking and for moves that make a match attempt per position cost the rest
    // of a run. A finding is rewritten (a one-character guard before a run, checks in code), never disabled.
    files: ['**/*.ts', '**/*.mjs', '**/*.cjs', '**/*.js'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false, ignorePartial: false }],
      'regexp/no-useless-assertions': 'error',
      'regexp/no-useless-backreference': 'error',
      'regexp/no-useless-character-class': 'error',
      'regexp/no-useless-dollar-replacements': 'error',
      'regexp/no-useless-escape': 'error',
      'regexp/no-useless-flag': 'error',
      'regexp/no-useless-lazy': 'error',
      'regexp/no-useless-non-capturing-group': 'error',
      'regexp/no-useless-quantifier': 'error',
      'regexp/no-useless-range': 'error',
      'regexp/no-useless-set-operand': 'error',
      'regexp/no-useless-string-literal': 'error',
      'regexp/no-useless-two-nums-quantifier': 'error',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
  { files: ['**/*.cjs', 'jest.config.js', 'knexfile.js'], languageOptions: { sourceType: 'commonjs' } },
  prettier,
);
