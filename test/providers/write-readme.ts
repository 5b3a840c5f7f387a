// `npm run catalog:readme`: rewrites the README's generated catalog count and table. Writes only
// with --write, so a test runner that loads every file in this folder changes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { readCatalogDir } from '../../lib/providers/index.js';
import { updateReadme } from './readme-region.js';

if (process.argv.includes('--write')) {
  const file = new URL('../../README.md', import.meta.url);
  const before = readFileSync(file, 'utf8');
  const after = updateReadme(before, readCatalogDir());
  if (after !== before) writeFileSync(file, after);
  console.log(
    after === before ? 'README.md catalog section already up to date' : 'README.md catalog section rewritten',
  );
}
