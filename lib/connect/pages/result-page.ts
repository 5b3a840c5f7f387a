import type { Context } from 'koa';
import { errorStatus, type ErrorCode, type GatewayError } from '../../errors.js';
import { trusted } from './html.js';
import { sendPage } from './layout.js';
import type { Look } from './look.js';
import { endUserFailure, failureKindOf } from './end-user-message.js';

/** What the page hands to the window that opened the connect link (the frontend SDK). */
export type ConnectResult =
  | { source: 'portico-connect'; ok: true; provider_config_key: string; connection_id: string }
  | { source: 'portico-connect'; ok: false; error: { code: string; message: string }; provider_config_key?: string };

const okIcon = trusted(
  '<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#e7f6ec"/><path d="M17 29l7 7 15-16" fill="none" stroke="#137333" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>',
);
const failIcon = trusted(
  '<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#fef3f2"/><path d="M28 16v15" stroke="#b42318" stroke-width="4" stroke-linecap="round"/><circle cx="28" cy="39" r="2.6" fill="#b42318"/></svg>',
);

// Not a failure: the end user did their part and someone else has to act (an owner approves).
const waitIcon = trusted(
  '<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#eef2f6"/><circle cx="28" cy="28" r="13" fill="none" stroke="#475467" stroke-width="3.5"/><path d="M28 21v8l5 3" fill="none" stroke="#475467" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/></svg>',
);

/**
 * The connection is stored: the page names the provider by its display name and the app, and
 * hands the ids to the opener only (never shown). `organization`: an administrator consented
 * for the whole organization, so the page says so.
 */
export function sendSuccessPage(
  ctx: Context,
  look: Look,
  connection: { provider_config_key: string; connection_id: string },
  reach: 'account' | 'organization' = 'account',
): void {
  const provider = look.provider?.displayName ?? look.text.theService;
  const body = reach === 'organization' ? look.text.success.organizationBody : look.text.success.body;
  sendPage(ctx, look, {
    status: 200,
    title: look.text.success.title,
    lead: body(provider, look.appName),
    icon: okIcon,
    result: { source: 'portico-connect', ok: true, ...connection } satisfies ConnectResult,
    close: true,
    note: look.text.canClose,
  });
}

/** A failed attempt as the end user sees it; the opener gets the code and the same sentence. */
export function sendFailurePage(ctx: Context, look: Look, error: Pick<GatewayError, 'code' | 'details'>): void {
  const { title, body } = endUserFailure(
    look.text,
    error,
    look.provider?.displayName ?? look.text.theService,
    look.appName,
  );
  const result: ConnectResult = {
    source: 'portico-connect',
    ok: false,
    error: { code: error.code, message: body },
    ...(look.providerConfigKey ? { provider_config_key: look.providerConfigKey } : {}),
  };
  sendPage(ctx, look, {
    status: errorStatus[error.code as ErrorCode] ?? 400,
    title,
    lead: body,
    icon: failureKindOf(error) === 'pending' ? waitIcon : failIcon,
    result,
    close: true,
    note: look.text.canClose,
  });
}
