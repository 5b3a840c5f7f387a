import { createHash } from 'node:crypto';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot close the `<script type="application/json">` element holding it. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const markup = Symbol.for('portico.Html');

/** Markup built by `html`: the only thing that is inserted into a page unescaped. */
export interface Html {
  readonly [markup]: string;
}

const isHtml = (value: unknown): value is Html => typeof value === 'object' && value !== null && markup in value;

const piece = (value: unknown): string => {
  if (value === null || value === undefined || value === false) return '';
  if (isHtml(value)) return value[markup];
  if (Array.isArray(value)) return value.map(piece).join('');
  return escapeHtml(String(value));
};

/**
 * The pages' one template helper: every interpolated value is escaped unless it is itself
 * `html` output; arrays are joined; `null`, `undefined` and `false` render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] ?? '');
  });
  return { [markup]: out };
}

/** Trusted constant markup (inline icons): never pass anything derived from input. */
export const trusted = (text: string): Html => ({ [markup]: text });

export const render = (value: Html): string => value[markup];
