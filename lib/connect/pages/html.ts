import { createHash } from 'node:crypto';
import type { Context } from 'koa';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot close the `<script type="application/json">` element holding it. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const style = 'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}' +
  'h1{font-size:1.4rem}.error{color:#b42318}label{display:block;margin:.8rem 0 .2rem}' +
  'input{width:100%;padding:.45rem;font:inherit;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1.2rem;font:inherit}' +
  'code{background:#f2f4f7;padding:0 .2rem}li{margin:.4rem 0}';
const styleHash = hashOf(style);

export interface PageOptions {
  title: string;
  /** Already-escaped HTML. */
  body: string;
  status: number;
  /** Inline scripts that run on the page (allowed by hash, nothing else is). */
  scripts?: string[];
  /** Where the page's forms may submit (and be redirected); none by default. */
  formAction?: string[];
  /** Already-escaped extra elements for the head (a refresh). */
  head?: string;
}

/**
 * Answers a small self-contained page: no external resource, scripts allowed by hash only,
 * no framing, nothing cached (the pages carry one-time tokens).
 */
export function sendPage(ctx: Context, page: PageOptions): void {
  const scripts = page.scripts ?? [];
  const csp = [
    "default-src 'none'",
    `style-src ${styleHash}`,
    `script-src ${scripts.length > 0 ? scripts.map(hashOf).join(' ') : "'none'"}`,
    `form-action ${page.formAction?.length ? page.formAction.join(' ') : "'none'"}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  ctx.status = page.status;
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<title>${escapeHtml(page.title)}</title>${page.head ?? ''}<style>${style}</style></head><body><main>${page.body}</main>` +
    scripts.map((s) => `<script>${s}</script>`).join('') + '</body></html>';
}
