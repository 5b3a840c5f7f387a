import type { Context } from 'koa';
import { escapeHtml, sendPage } from './html.js';

/**
 * After a form POST the next hop is the provider. A redirect answering a form submission is
 * subject to the page's `form-action`, which cannot name every provider host in advance, so
 * the hop is a link the page follows.
 */
export function sendContinuePage(ctx: Context, providerName: string, target: string): void {
  const href = escapeHtml(target);
  sendPage(ctx, {
    title: `Continue to ${providerName}`,
    status: 200,
    head: `<meta http-equiv="refresh" content="0;url=${href}">`,
    body: `<h1>Continue to ${escapeHtml(providerName)}</h1>` +
      `<p><a href="${href}">Continue</a></p>`,
  });
}
