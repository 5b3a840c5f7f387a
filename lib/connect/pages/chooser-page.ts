import type { Context } from 'koa';
import { escapeHtml, sendPage } from './html.js';

/** The connect link's page when the session allows several integrations. */
export function sendChooserPage(ctx: Context, connectUrl: string, integrations: { key: string; name: string }[], query: string): void {
  const items = integrations.map((i) =>
    `<li><a href="${escapeHtml(`${connectUrl}/${encodeURIComponent(i.key)}?${query}`)}">${escapeHtml(i.name)}</a></li>`).join('');
  sendPage(ctx, { title: 'Choose what to connect', status: 200, body: `<h1>Choose what to connect</h1><ul>${items}</ul>` });
}
