import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { FlowDeps } from './deps.js';
import { stateTtlMs, type Flow } from './flow-store.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * One cookie per flow, named after its state, so several flows started in one browser (two
 * tabs, a retry) do not overwrite each other's nonce.
 */
const cookieName = (state: string) => `portico_flow_${digest(state).toString('hex').slice(0, 16)}`;

function cookie(deps: FlowDeps, name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=${deps.cookiePath || '/'}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${deps.secureCookies ? '; Secure' : ''}`;
}

/**
 * Stores a flow bound to the browser that starts it: a random nonce goes into an HttpOnly,
 * SameSite=Lax cookie (Secure when the gateway is served over https), its hash into the flow.
 * Whoever finishes the flow must present it, so a state or consent URL sent to someone else
 * (connection fixation) finishes nothing. The cookie is scoped to the gateway's `/oauth` routes.
 */
export async function issueBoundFlow(deps: FlowDeps, ctx: Context, flow: Omit<Flow, 'browser'>): Promise<string> {
  const nonce = randomBytes(32).toString('base64url');
  const { token } = await deps.flows.issue({ ...flow, browser: digest(nonce).toString('base64url') });
  ctx.append('Set-Cookie', cookie(deps, cookieName(token), nonce, Math.ceil(stateTtlMs / 1000)));
  return token;
}

/** True when this request carries the nonce the flow was started with. */
export function isStartingBrowser(ctx: Context, state: string, flow: Pick<Flow, 'browser'>): boolean {
  const nonce = ctx.cookies.get(cookieName(state), { signed: false });
  if (!nonce || !flow.browser) return false;
  const expected = Buffer.from(flow.browser, 'base64url');
  const presented = digest(nonce);
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}

/** Drops the flow's cookie once the flow is spent. */
export function forgetBrowser(deps: FlowDeps, ctx: Context, state: string): void {
  ctx.append('Set-Cookie', cookie(deps, cookieName(state), '', 0));
}
