import type { Context } from 'koa';
import { clientScript } from './client-script.js';
import { hashOf, html, jsonForScript, render, trusted, type Html } from './html.js';
import type { Look } from './look.js';
import { accentStyle, baseStyle } from './style.js';

export interface PageOptions {
  status: number;
  title: string;
  /** Under the heading. */
  lead?: string | undefined;
  /** Between the heading block and the buttons. */
  body?: Html | undefined;
  /** The outcome's icon, between the app's and the provider's marks. */
  icon?: Html | undefined;
  /** Initial text of the status line (replaced by the script as things happen). */
  note?: string | undefined;
  /** Offer Cancel (reports `cancelled` to the opener). */
  cancel?: boolean;
  /** Offer Close (shown by the script when the page is a popup). */
  close?: boolean;
  /** Handed to the opener on load. */
  result?: unknown;
  /** Where the page's forms may submit; none by default. */
  formAction?: string[];
  /** Extra head elements (a refresh). */
  head?: Html | undefined;
}

const scriptHash = hashOf(clientScript);
const styleHash = hashOf(baseStyle);

const dots = trusted('<span class="dots" aria-hidden="true"><i></i><i></i><i></i></span>');

/** The app's tile and the provider's logo, joined by dots or by the outcome's icon; the icon alone when neither is known. */
function marks(look: Look, icon: Html | undefined): Html {
  const tile = look.named
    ? html`<span class="tile" aria-hidden="true">${[...look.appName][0]?.toUpperCase()}</span>`
    : null;
  const logo = look.provider
    ? html`<img class="logo" src="${look.provider.logoUrl}" alt="" width="48" height="48">`
    : null;
  if (!tile && !logo) return icon ?? html``;
  return html`<div class="brand">${tile}${tile && logo ? (icon ?? dots) : null}${logo}${tile && logo ? null : icon}</div>`;
}

function cancelMessage(look: Look) {
  return {
    source: 'portico-connect',
    ok: false,
    error: { code: 'cancelled', message: look.text.cancelledResult },
    ...(look.providerConfigKey ? { provider_config_key: look.providerConfigKey } : {}),
  };
}

/**
 * Answers one connect page: a centred card under a CSP that allows only this page's style and
 * the one script by hash, images from the gateway itself, no framing, nothing cached (the
 * pages carry one-time tokens).
 */
export function sendPage(ctx: Context, look: Look, page: PageOptions): void {
  const accent = accentStyle(look.palette);
  const data = {
    origin: look.origin,
    result: page.result,
    cancel: page.cancel ? cancelMessage(look) : undefined,
    text: { closing: look.text.closing, cancelled: look.text.cancelled },
  };
  const csp = [
    "default-src 'none'",
    `style-src ${styleHash} ${hashOf(accent)}`,
    `script-src ${scriptHash}`,
    `img-src ${look.assetOrigin}`,
    `form-action ${page.formAction?.length ? page.formAction.join(' ') : "'none'"}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const doc = html`<!doctype html><html lang="${look.text.lang}" dir="${look.text.dir}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">
<title>${page.title}</title>${page.head}<style>${trusted(baseStyle)}</style><style>${trusted(accent)}</style></head>
<body><main class="card" aria-labelledby="portico-title">${marks(look, page.icon)}
<h1 id="portico-title">${page.title}</h1>${page.lead ? html`<p class="lead">${page.lead}</p>` : null}
${look.forWhom ? html`<p class="who">${look.text.forWhom(look.forWhom)}</p>` : null}${page.body}
${page.cancel ? html`<button type="button" id="portico-cancel" class="btn secondary">${look.text.cancel}</button>` : null}
${page.close ? html`<button type="button" id="portico-close" class="btn secondary" hidden>${look.text.close}</button>` : null}
<p id="portico-status" class="status" role="status" aria-live="polite">${page.note}</p></main>
<script type="application/json" id="portico-data">${trusted(jsonForScript(data))}</script><script>${trusted(clientScript)}</script></body></html>`;
  ctx.status = page.status;
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = render(doc);
}
