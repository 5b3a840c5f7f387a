import type { Context } from 'koa';
import { html } from './html.js';
import { sendPage } from './layout.js';
import type { Look } from './look.js';

export interface FormField {
  /** `apiKey`, `username`, `password` or `connection_config.NAME`. */
  name: string;
  secret: boolean;
}

export interface FormPage {
  /** Absolute URL the form posts to (the integration's connect route). */
  action: string;
  state: string;
  fields: FormField[];
  /** Shown above the fields after a refused attempt (end-user text only). */
  error?: string | undefined;
  /** The field the error is about, if one. */
  invalidField?: string | undefined;
  status?: number;
}

function labelOf(look: Look, name: string): string {
  const t = look.text.form;
  if (name === 'apiKey') return t.apiKey;
  if (name === 'username') return t.username;
  if (name === 'password') return t.password;
  return t.setting(name.replace(/^connection_config\./, ''));
}

/** The page where the end user types an API key, basic credentials or a connection setting. */
export function sendFormPage(ctx: Context, look: Look, page: FormPage): void {
  const t = look.text.form;
  const provider = look.provider?.displayName ?? look.text.theService;
  const invalid = (name: string) =>
    Boolean(page.error) && (page.invalidField === undefined || page.invalidField === name);
  const fields = page.fields.map(
    (f, i) => html`<label for="f${i}">${labelOf(look, f.name)}</label>
<input id="f${i}" name="${f.name}" type="${f.secret ? 'password' : 'text'}" required autocomplete="off" autocapitalize="off" spellcheck="false"${
      invalid(f.name) ? html` aria-invalid="true" aria-describedby="form-error"` : null
    }${i === 0 ? html` autofocus` : null}>`,
  );
  const help = look.provider?.helpUrl
    ? html`<a class="help" href="${look.provider.helpUrl}" target="_blank" rel="noopener noreferrer">${t.help(provider)}</a>`
    : null;
  const secret = page.fields.some((f) => f.secret);
  sendPage(ctx, look, {
    status: page.status ?? 200,
    title: t.title(provider),
    lead: t.lead(look.appName, provider),
    body: html`${page.error ? html`<div class="alert" id="form-error" role="alert"><strong>${t.errorTitle}</strong>${page.error}</div>` : null}
<form method="post" action="${page.action}" data-busy-text="${look.text.working}">
<input type="hidden" name="state" value="${page.state}">${fields}${help}
${secret ? html`<p class="note">${t.secretNote}</p>` : null}<button type="submit" class="btn primary"><span>${t.submit}</span></button></form>`,
    cancel: true,
    formAction: [new URL(page.action).origin],
  });
}
