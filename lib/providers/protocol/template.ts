/*
 * `${connection_config.NAME}` placeholders in catalog templates (authorization, token and API
 * base URLs, token parameters, proxy headers and query). One set of rules for every filler: the
 * connect flow refuses at connect time exactly what the proxy and the token refresh refuse later.
 */

const placeholder = /\$\{connection_config\.([a-zA-Z0-9_]+)\}/g;
const marker = '${connection_config.';

/*
 * RFC 3986 unreserved characters, 1 to 255 of them, not starting or ending with a dot, no "..":
 * such a value cannot add a scheme, user-info, port, path segment, query or fragment to the URL it
 * fills, nor be a dot segment. In a host it can only add labels; in a path it stays one segment.
 */
const safeValue = /^[A-Za-z0-9_~-](?:[A-Za-z0-9._~-]{0,253}[A-Za-z0-9_~-])?$/;

/** Whether `value` may fill a placeholder. */
export const isSafeConfigValue = (value: string): boolean => safeValue.test(value) && !value.includes('..');

/** What the rules allow, for error messages. */
export const safeConfigValueRule = 'letters, digits, "-", "_", "~" and single inner dots (at most 255 characters)';

export const hasPlaceholder = (template: string): boolean => template.includes(marker);

/** The names a template's placeholders use, in order, repeats included. */
export function placeholderNames(template: string): string[] {
  return [...template.matchAll(placeholder)].map((m) => m[1] as string);
}

/** The placeholder text for `name`: `${connection_config.name}`. */
export const placeholderFor = (name: string): string => `${marker}${name}}`;

/** Replaces every placeholder by `x`: the shape of a template once filled. */
export const blankPlaceholders = (text: string, by: string): string => text.replace(placeholder, by);

export type FillResult =
  | { ok: true; value: string }
  /** `missing`: no value or an empty one; `unsafe`: the value breaks the rules above. */
  | { ok: false; name: string; problem: 'missing' | 'unsafe' };

/**
 * Fills a template's placeholders from `valueOf` (the connection's config, then the catalog's
 * defaults, as the caller decides). The first bad name stops the fill; callers word the error.
 */
export function fillTemplate(template: string, valueOf: (name: string) => string | undefined): FillResult {
  if (!template.includes(marker)) return { ok: true, value: template };
  let failed: { name: string; problem: 'missing' | 'unsafe' } | undefined;
  const value = template.replace(placeholder, (_whole, name: string) => {
    if (failed) return '';
    const found = valueOf(name);
    if (found === undefined || found === '') failed = { name, problem: 'missing' };
    else if (!isSafeConfigValue(found)) failed = { name, problem: 'unsafe' };
    return found ?? '';
  });
  return failed ? { ok: false, ...failed } : { ok: true, value };
}
