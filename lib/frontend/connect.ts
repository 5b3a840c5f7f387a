import { ConnectError } from './connect-error.js';

export interface ConnectOptions {
  /** The connect link from `POST /connect/sessions`, or `baseUrl` plus `sessionToken`. */
  connectLink?: string;
  /** The gateway's public base URL, mount prefix included (e.g. `https://api.example.com/portico`). */
  baseUrl?: string;
  sessionToken?: string;
  /** Go straight to this integration instead of the list the link shows. */
  integration?: string;
  /** Settings the end user supplies, by name (only names the provider declares, e.g. `subdomain`). */
  connectionConfig?: Record<string, string>;
  /** Popup size in CSS pixels. Defaults 500 × 700. */
  width?: number;
  height?: number;
  /** Stops waiting and closes the popup. */
  signal?: AbortSignal;
  /** The window opening the popup (an iframe's, or a test's). Defaults to `window`. */
  window?: Window;
}

export interface ConnectSuccess {
  connectionId: string;
  providerConfigKey: string;
}

/** The message the gateway's result page posts to its opener. */
interface ResultMessage {
  source: 'portico-connect';
  ok: boolean;
  connection_id?: string;
  provider_config_key?: string;
  error?: { code: string; message: string };
}

const isResult = (data: unknown): data is ResultMessage =>
  typeof data === 'object' && data !== null && (data as { source?: unknown }).source === 'portico-connect';

function linkFor(options: ConnectOptions, pageOrigin: string): URL {
  let url: URL;
  if (options.connectLink) url = new URL(options.connectLink);
  else if (options.baseUrl && options.sessionToken) {
    url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/oauth/connect`);
    url.searchParams.set('connect_session_token', options.sessionToken);
  } else {
    throw new ConnectError('invalid_options', 'Pass connectLink, or baseUrl and sessionToken.');
  }
  if (options.integration)
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(options.integration)}`;
  // Picks this page among the session's allowed origins; the gateway never posts to an origin the backend did not allow.
  url.searchParams.set('origin', pageOrigin);
  for (const [name, value] of Object.entries(options.connectionConfig ?? {}))
    url.searchParams.set(`connection_config.${name}`, value);
  return url;
}

/**
 * Opens the connect link in a popup and resolves with the new connection once the end user
 * has authorized, or rejects with a `ConnectError`. Call it from a click handler (browsers
 * block popups opened otherwise).
 */
export function connect(options: ConnectOptions): Promise<ConnectSuccess> {
  const win = options.window ?? window;
  return new Promise<ConnectSuccess>((resolve, reject) => {
    const url = linkFor(options, win.location.origin);
    const width = options.width ?? 500;
    const height = options.height ?? 700;
    const left = Math.max(0, win.screenX + (win.outerWidth - width) / 2);
    const top = Math.max(0, win.screenY + (win.outerHeight - height) / 2);
    const popup = win.open(
      url.toString(),
      'portico-connect',
      `popup=yes,width=${width},height=${height},left=${left},top=${top}`,
    );
    if (!popup) {
      reject(
        new ConnectError(
          'popup_blocked',
          'The browser blocked the connect window. Call connect() from a click handler.',
        ),
      );
      return;
    }
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      win.removeEventListener('message', onMessage);
      win.clearInterval(watcher);
      options.signal?.removeEventListener('abort', onAbort);
      if (!popup.closed) popup.close();
      outcome();
    };
    const onMessage = (event: MessageEvent) => {
      // Only the gateway's page in our own popup may answer.
      if (event.origin !== url.origin || event.source !== popup || !isResult(event.data)) return;
      const data = event.data;
      if (data.ok && data.connection_id && data.provider_config_key) {
        finish(() =>
          resolve({
            connectionId: data.connection_id as string,
            providerConfigKey: data.provider_config_key as string,
          }),
        );
      } else {
        const error = data.error ?? { code: 'unknown_error', message: 'The connection failed.' };
        finish(() => reject(new ConnectError(error.code, error.message, data.provider_config_key)));
      }
    };
    const onAbort = () => finish(() => reject(new ConnectError('aborted', 'The connection was cancelled.')));
    // The end user may close the window, or the provider may sever the opener link.
    const watcher = win.setInterval(() => {
      if (popup.closed)
        finish(() =>
          reject(new ConnectError('window_closed', 'The connect window was closed before the connection finished.')),
        );
    }, 300);
    win.addEventListener('message', onMessage);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort);
  });
}
