/**
 * The URL of the `Link` header entry (RFC 8288) whose `rel` holds `rel`, if any. Relation types
 * compare case-insensitively, `rel` may list several (`rel="next last"`), quoted or not, and a
 * header split over several lines (Node's string array) reads as one.
 */
export function linkWithRel(header: string | readonly string[] | null | undefined, rel: string): string | undefined {
  const value = typeof header === 'string' ? header : header?.join(',');
  if (!value) return undefined;
  const wanted = rel.toLowerCase();
  for (const match of value.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    const names = (rels?.[1] ?? rels?.[2] ?? '').toLowerCase().split(/\s+/);
    if (names.includes(wanted)) return match[1];
  }
  return undefined;
}
