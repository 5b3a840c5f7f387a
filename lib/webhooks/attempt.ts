import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseRetryAfter, type AttemptResult } from './policy.js';

export interface Attempted {
  result: AttemptResult;
  durationMs: number;
}

export interface WebhookPoster {
  /**
   * One POST of a signed body, the very bytes that were signed.
   * Redirects are not followed (a 3xx is the answer); the response body is discarded. Cut at
   * `timeoutMs` from the start (connect, response headers and the discarded body included), or by `signal`
   * (shutdown), which rejects instead of answering.
   */
  post(url: string, body: Buffer, headers: Record<string, string>, signal: AbortSignal): Promise<Attempted>;
  close(): void;
}

/** node:http with keep-alive agents: connections to a receiver are reused across deliveries. */
export function createWebhookPoster(options: { timeoutMs: number }): WebhookPoster {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return {
    post(url, body, headers, signal) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      return new Promise<Attempted>((resolve, reject) => {
        if (signal.aborted) return reject(new Error('shutting down'));
        let outcome: 'timeout' | 'shutdown' | undefined;
        const req = (secure ? httpsRequest : httpRequest)(target, {
          method: 'POST',
          agent: secure ? agents.https : agents.http,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'user-agent': 'Portico-Webhooks/1',
            ...headers,
          },
        });
        const timer = setTimeout(() => {
          outcome = 'timeout';
          req.destroy();
        }, options.timeoutMs);
        const onShutdown = () => {
          outcome = 'shutdown';
          req.destroy();
        };
        signal.addEventListener('abort', onShutdown, { once: true });
        const finish = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onShutdown);
        };
        req.once('response', (res: IncomingMessage) => {
          signal.removeEventListener('abort', onShutdown);
          // Only the status matters; draining the body keeps the connection reusable. The
          // deadline stays until the body is drained: a receiver stalling mid-body loses the socket.
          res.resume();
          res.on('error', () => undefined);
          res.once('close', () => clearTimeout(timer));
          const status = res.statusCode ?? 0;
          resolve({
            result: { kind: 'response', status, retryAfterMs: parseRetryAfter(headerOf(res, 'retry-after')) },
            durationMs: elapsed(),
          });
        });
        req.once('error', (error: NodeJS.ErrnoException) => {
          finish();
          if (outcome === 'shutdown') reject(error);
          else if (outcome === 'timeout') resolve({ result: { kind: 'timeout' }, durationMs: elapsed() });
          else resolve({ result: { kind: 'network', message: error.code ?? error.message }, durationMs: elapsed() });
        });
        req.end(body);
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function headerOf(res: IncomingMessage, name: string): string | null {
  const value = res.headers[name];
  return typeof value === 'string' ? value : null;
}
