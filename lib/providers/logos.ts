import { createHash } from 'node:crypto';
import type { BrandIcon, BrandIcons } from './brand-icons.js';
import { escapeXml, monogramSvg } from './monogram.js';
import type { Provider } from './schema.js';

/** Which logo a provider gets: a simple-icons brand, or its monogram. */
export type LogoSource = { kind: 'brand'; icon: BrandIcon } | { kind: 'monogram' };

export interface Logo {
  svg: string;
  /** A strong validator of `svg` (quoted, as the `ETag` header carries it). */
  etag: string;
}

export interface Logos {
  source(provider: Provider): LogoSource;
  /** The rendered logo; cached per provider (the catalog bounds the cache). */
  get(provider: Provider): Logo;
}

/** Letters and digits only, lower case: "Help Scout" and "help-scout" compare equal. */
const loose = (value: string) => value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * The explicit `logo` slug (`false`: the monogram), else the name (or the name without dashes)
 * when simple-icons' title for it matches the display name: a brand that merely shares a word
 * never lends its logo, and one that shares the whole name is opted out with `logo: false`.
 */
function resolve(provider: Provider, icons: BrandIcons): LogoSource {
  if (provider.logo === false) return { kind: 'monogram' };
  if (provider.logo) {
    const icon = icons.get(provider.logo);
    return icon ? { kind: 'brand', icon } : { kind: 'monogram' };
  }
  const shown = loose(provider.display_name);
  for (const slug of new Set([provider.name, provider.name.replaceAll('-', '')])) {
    const icon = icons.get(slug);
    const title = icon && loose(icon.title);
    if (icon && title && (shown.includes(title) || title.includes(shown))) return { kind: 'brand', icon };
  }
  return { kind: 'monogram' };
}

const channel = (c: number) => {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
/** WCAG relative luminance of `RRGGBB`. */
const luminance = (hex: string) => {
  const [r, g, b] = [0, 2, 4].map((i) => channel(Number.parseInt(hex.slice(i, i + 2), 16))) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** The brand's glyph on a tile of the brand's colour, in white or near-black, whichever reads better. */
function brandSvg(icon: BrandIcon, displayName: string): string {
  const l = luminance(icon.hex);
  const glyph = 1.05 / (l + 0.05) >= (l + 0.05) / 0.0597 ? '#fff' : '#111827';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32" role="img">` +
    `<title>${escapeXml(displayName)}</title>` +
    `<rect width="32" height="32" rx="6" fill="#${icon.hex}"/>` +
    `<path transform="translate(6 6) scale(.8333)" fill="${glyph}" d="${escapeXml(icon.path)}"/>` +
    `</svg>`
  );
}

export function createLogos(icons: BrandIcons): Logos {
  const cache = new Map<string, Logo>();
  const source = (provider: Provider) => resolve(provider, icons);
  return {
    source,
    get(provider) {
      const key = `${provider.name}\n${provider.display_name}\n${provider.logo ?? ''}`;
      let logo = cache.get(key);
      if (!logo) {
        const found = source(provider);
        const svg =
          found.kind === 'brand'
            ? brandSvg(found.icon, provider.display_name)
            : monogramSvg(provider.name, provider.display_name);
        logo = { svg, etag: `"${createHash('sha256').update(svg).digest('base64url').slice(0, 27)}"` };
        cache.set(key, logo);
      }
      return logo;
    },
  };
}
