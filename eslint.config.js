// ESLint 9 flat config: typescript-eslint's recommended rules (no type information: fast),
// plus one rule of our own, feature-doors (see below).
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));

/**
 * Doors besides each feature's index.ts: the scripts feature's light door for the CLI, the
 * providers feature's pure protocol door (the script runtime and the SDK bundle it without the
 * catalog loader), and the storage's page-reading door (the SQLite page reader's worker thread
 * loads it without the rest of the storage feature).
 */
const extraDoors = new Set(['lib/scripts/local.ts', 'lib/providers/protocol/index.ts', 'lib/storage/page-reader.ts']);

/**
 * Code outside a feature folder (`lib/<feature>/` with an `index.ts`) imports only that door.
 * Tests may reach inside (they test the parts); lib, adapters, bench and examples may not.
 */
const featureDoors = {
  meta: {
    type: 'problem',
    messages: { door: 'Import {{feature}} through its door {{feature}}/index.ts, not {{target}}.' },
  },
  create(context) {
    const from = relative(root, context.filename);
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = relative(root, resolve(dirname(context.filename), source)).replace(/\.js$/, '.ts');
      const [top, name] = target.split('/');
      if (top !== 'lib' || !name) return;
      const feature = `lib/${name}`;
      if (from.startsWith(`${feature}/`) || !existsSync(resolve(root, feature, 'index.ts'))) return;
      if (target === `${feature}/index.ts` || target === feature || extraDoors.has(target)) return;
      context.report({ node: node.source, messageId: 'door', data: { feature, target } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tap/**', 'coverage/**', 'lib/providers/catalog/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { portico: { rules: { 'feature-doors': featureDoors } } },
    rules: {
      'portico/feature-doors': 'error',
      // The house way to drop fields (`{ environment: _env, ...rest }`) and to leave an argument unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      // A `let` a closure reads before its one assignment (a server handle set after listen) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  // The few plain JavaScript files: TypeScript checks globals everywhere else.
  { files: ['**/*.js', '**/*.mjs'], rules: { 'no-undef': 'off' } },
  // Tests and benchmarks test and measure the parts of a feature, not only its door; test doubles
  // and parsed JSON answers are typed `any` on purpose.
  {
    files: ['test/**', 'bench/**'],
    rules: { 'portico/feature-doors': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
