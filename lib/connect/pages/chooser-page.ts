import type { Context } from 'koa';
import { html } from './html.js';
import { sendPage } from './layout.js';
import type { Look } from './look.js';

export interface Choice {
  href: string;
  name: string;
  logoUrl: string;
}

/** The connect link's page when the session allows several integrations. */
export function sendChooserPage(ctx: Context, look: Look, choices: Choice[]): void {
  const t = look.text.chooser;
  const items = choices.map(
    (c) =>
      html`<li><a class="choice" href="${c.href}"><img src="${c.logoUrl}" alt="" width="32" height="32"><span>${c.name}</span></a></li>`,
  );
  sendPage(ctx, look, {
    status: 200,
    title: t.title,
    lead: t.lead(look.appName),
    body: html`<ul class="choices" aria-label="${t.listLabel}">${items}</ul>`,
    cancel: true,
  });
}
