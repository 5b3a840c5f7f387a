import type { Provider } from '../../lib/providers/index.js';

/**
 * The README's catalog figures, generated from the catalog folder (`npm run catalog:readme`),
 * so the count and the table never drift: the catalog test fails when the README is stale.
 */
const count = /(<!-- catalog:count -->)[^<]*(<!-- \/catalog:count -->)/g;
const region = /(<!-- catalog:start[^>]*-->\n)[\s\S]*?(<!-- catalog:end -->)/;

export function catalogTable(providers: readonly Provider[]): string {
  const byCategory = new Map<string, string[]>();
  for (const p of providers) {
    for (const c of p.categories) byCategory.set(c, [...(byCategory.get(c) ?? []), p.display_name]);
  }
  const rows = [...byCategory]
    .sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b))
    .map(
      ([c, names]) =>
        `| ${c} (${names.length}) | ${names
          .sort((a, b) => a.localeCompare(b))
          .join(', ')
          .replaceAll('|', '\\|')} |`,
    );
  return [
    `${providers.length} providers; a provider can be in several categories.`,
    '',
    '| Category | Providers |',
    '| --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** The README with its marked count and table regenerated; throws when the markers are missing. */
export function updateReadme(readme: string, providers: readonly Provider[]): string {
  if (!region.test(readme) || !readme.match(count))
    throw new Error('README.md lacks the catalog markers (catalog:count, catalog:start/end)');
  return readme
    .replace(count, `$1${providers.length}$2`)
    .replace(region, (_all, start: string, end: string) => `${start}${catalogTable(providers)}${end}`);
}
