/** `&`, `<`, `>`, `"` and `'` as XML entities: text and attribute values alike. */
export const escapeXml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Up to two initials: the first letter or digit of the first two words ("Help Scout" → "HS"). */
export function initialsOf(displayName: string): string {
  const words = displayName.match(/[\p{L}\p{N}]+/gu) ?? [];
  const initials = words
    .slice(0, 2)
    .map((w) => [...w][0] ?? '')
    .join('')
    .toLocaleUpperCase('en');
  return initials || '?';
}

/** Tile colours that each keep white text above the 4.5:1 contrast of WCAG AA. */
export const monogramColours = [
  '#b91c1c',
  '#c2410c',
  '#a16207',
  '#4d7c0f',
  '#15803d',
  '#0f766e',
  '#0e7490',
  '#1d4ed8',
  '#4338ca',
  '#6d28d9',
  '#a21caf',
  '#be123c',
  '#334155',
] as const;

/** A stable colour from the name (FNV-1a), so a provider keeps its colour across restarts and hosts. */
export function colourOf(name: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return monogramColours[hash % monogramColours.length] ?? '#334155';
}

/**
 * The logo of a provider simple-icons does not carry: its initials in white on a rounded tile
 * coloured from its name.
 */
export function monogramSvg(name: string, displayName: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32" role="img">` +
    `<title>${escapeXml(displayName)}</title>` +
    `<rect width="32" height="32" rx="6" fill="${colourOf(name)}"/>` +
    `<text x="16" y="16" dy=".35em" text-anchor="middle" fill="#fff" font-family="system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif" font-size="13" font-weight="600">${escapeXml(initialsOf(displayName))}</text>` +
    `</svg>`
  );
}
