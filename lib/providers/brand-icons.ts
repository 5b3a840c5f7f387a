import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One simple-icons brand: its name, colour (hex without `#`) and 24×24 path. */
export interface BrandIcon {
  slug: string;
  title: string;
  hex: string;
  path: string;
}

export interface BrandIcons {
  /** The icon for a slug, or undefined when simple-icons has no such brand. */
  get(slug: string): BrandIcon | undefined;
}

const slugPattern = /^[a-z0-9_]{1,64}$/;
/** SVG path data: commands, numbers, separators. Anything else is refused, so no markup can ride along. */
const pathData = /^[0-9a-zA-Z.,\-\s]+$/;

/**
 * simple-icons (CC0), read lazily: its ~450 KB index of titles and colours on the first lookup,
 * then one small SVG file per brand asked for. The 5 MB module of every path is never loaded.
 * `packageDir` is for tests; by default the installed package.
 */
export function createBrandIcons(packageDir?: string): BrandIcons {
  let index: Map<string, { title: string; hex: string }> | undefined;
  const dir = () => packageDir ?? dirname(dirname(createRequire(import.meta.url).resolve('simple-icons/icons.json')));
  const load = () => {
    const data = JSON.parse(readFileSync(join(dir(), 'data', 'simple-icons.json'), 'utf8')) as {
      slug: string;
      title: string;
      hex: string;
    }[];
    return new Map(data.map((i) => [i.slug, { title: i.title, hex: i.hex }]));
  };
  return {
    get(slug) {
      if (!slugPattern.test(slug)) return undefined;
      index ??= load();
      const entry = index.get(slug);
      if (!entry || !/^[0-9A-Fa-f]{6}$/.test(entry.hex)) return undefined;
      const svg = readFileSync(join(dir(), 'icons', `${slug}.svg`), 'utf8');
      const path = /<path d="([^"]*)"/.exec(svg)?.[1];
      if (!path || !pathData.test(path)) return undefined;
      return { slug, title: entry.title, hex: entry.hex.toUpperCase(), path };
    },
  };
}
