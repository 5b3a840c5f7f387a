import type { Context } from 'koa';
import { html } from './html.js';
import { sendPage } from './layout.js';
import type { Look } from './look.js';

/**
 * After a form POST the next hop is the provider. A redirect answering a form submission is
 * subject to the page's `form-action`, which cannot name every provider host in advance, so
 * the hop is a refresh, with a link for browsers that do not follow it.
 */
export function sendContinuePage(ctx: Context, look: Look, target: string): void {
  const t = look.text.continueTo;
  const provider = look.provider?.displayName ?? look.text.theService;
  sendPage(ctx, look, {
    status: 200,
    title: t.title(provider),
    lead: t.lead(provider),
    head: html`<meta http-equiv="refresh" content="0;url=${target}">`,
    body: html`<div class="spinner" aria-hidden="true"></div><a class="btn primary" href="${target}">${t.link(provider)}</a>`,
    cancel: true,
  });
}
