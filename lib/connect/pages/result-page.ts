import type { Context } from 'koa';
import { errorStatus, type ErrorCode } from '../../errors.js';
import { escapeHtml, jsonForScript, sendPage } from './html.js';

/** What the page hands to the window that opened the connect link (the frontend SDK). */
export type ConnectResult =
  | { source: 'portico-connect'; ok: true; provider_config_key: string; connection_id: string }
  | { source: 'portico-connect'; ok: false; error: { code: string; message: string }; provider_config_key?: string };

// Posts only to the origin fixed for this attempt (session or link), never to "*"; without an
// opener (a plain tab, or an opener severed by the provider's COOP) the page is the result.
const script = "(function(){var d=JSON.parse(document.getElementById('portico-result').textContent);" +
  "if(window.opener&&d.origin){try{window.opener.postMessage(d.message,d.origin);}catch(e){}" +
  "document.getElementById('portico-hint').textContent='This window will close.';" +
  "setTimeout(function(){window.close();},400);}})();";

export function sendResultPage(ctx: Context, result: ConnectResult, origin: string | null): void {
  const heading = result.ok ? 'Connected' : 'Connection failed';
  const detail = result.ok
    ? `<p>The connection <code>${escapeHtml(result.connection_id)}</code> to <code>${escapeHtml(result.provider_config_key)}</code> is ready.</p>`
    : `<p class="error">${escapeHtml(result.error.message)}</p><p>Code: <code>${escapeHtml(result.error.code)}</code></p>`;
  const status = result.ok ? 200 : (errorStatus[result.error.code as ErrorCode] ?? 400);
  sendPage(ctx, {
    title: heading,
    status,
    body: `<h1>${heading}</h1>${detail}<p id="portico-hint">You can close this window.</p>` +
      `<script type="application/json" id="portico-result">${jsonForScript({ origin, message: result })}</script>`,
    scripts: [script],
  });
}
