import type { Context } from 'koa';
import { escapeHtml, sendPage } from './html.js';

export interface FormField {
  /** `apiKey`, `username`, `password` or `connection_config.NAME`. */
  name: string;
  label: string;
  secret: boolean;
}

export interface FormPage {
  /** Absolute URL the form posts to (the integration's connect route). */
  action: string;
  providerName: string;
  state: string;
  fields: FormField[];
  /** Shown above the fields after a refused attempt. */
  error?: string | undefined;
  status?: number;
}

/** The page where the end user types an API key, basic credentials or a connection setting. */
export function sendFormPage(ctx: Context, page: FormPage): void {
  const fields = page.fields.map((f, i) =>
    `<label for="f${i}">${escapeHtml(f.label)}</label>` +
    `<input id="f${i}" name="${escapeHtml(f.name)}" type="${f.secret ? 'password' : 'text'}" required autocomplete="off"${i === 0 ? ' autofocus' : ''}>`).join('');
  sendPage(ctx, {
    title: `Connect ${page.providerName}`,
    status: page.status ?? 200,
    body: `<h1>Connect ${escapeHtml(page.providerName)}</h1>` +
      (page.error ? `<p class="error" role="alert">${escapeHtml(page.error)}</p>` : '') +
      `<form method="post" action="${escapeHtml(page.action)}">` +
      `<input type="hidden" name="state" value="${escapeHtml(page.state)}">${fields}` +
      '<button type="submit">Connect</button></form>',
    formAction: [new URL(page.action).origin],
  });
}
