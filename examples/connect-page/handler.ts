import { readFile } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export interface ConnectPageOptions {
  /** The gateway's public base URL (its `baseUrl`). */
  gatewayUrl: string;
  /** The environment's secret key: it stays on this server. */
  secretKey: string;
  /** This page's own origin; the gateway posts results to it only. */
  pageOrigin: string;
  /** The end user of this demo (a real app takes it from its login session). */
  endUser?: { id: string; email?: string; display_name?: string };
  /** The built browser SDK, by file name (`index.js`, `connect.js`, …). */
  sdkFile(name: string): Promise<string | undefined>;
  /** Where index.html and app.js are; this folder's `public/` by default. */
  publicDir?: string;
}

const defaultPublicDir = fileURLToPath(new URL('./public/', import.meta.url));
const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function send(res: ServerResponse, status: number, type: string, body: string) {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.end(body);
}

/**
 * The example customer app: the page, the SDK files, and the one backend route that creates
 * a connect session with the secret key.
 */
export function createConnectPageHandler(options: ConnectPageOptions): RequestListener {
  const publicDir = options.publicDir ?? defaultPublicDir;
  return (req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://page').pathname;
      if (req.method === 'POST' && path === '/api/connect-session') {
        const body = await readJson(req);
        const integration = typeof body.integration === 'string' ? body.integration : '';
        const upstream = await fetch(`${options.gatewayUrl}/connect/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.secretKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            end_user: options.endUser ?? { id: 'demo-user', email: 'demo@example.com', display_name: 'Demo user' },
            ...(integration ? { allowed_integrations: [integration] } : {}),
            origin: options.pageOrigin,
          }),
        });
        const answer = (await upstream.json()) as {
          data?: { connect_link: string; expires_at: string };
          error?: unknown;
        };
        // Only the link goes to the browser.
        if (answer.data) send(res, 200, 'application/json', JSON.stringify({ connect_link: answer.data.connect_link }));
        else send(res, upstream.status, 'application/json', JSON.stringify(answer));
        return;
      }
      if (path.startsWith('/sdk/')) {
        const name = path.slice('/sdk/'.length);
        const file = /^[a-z-]+\.js$/.test(name) ? await options.sdkFile(name) : undefined;
        if (file === undefined) send(res, 404, 'text/plain', 'not found');
        else send(res, 200, types['.js'] as string, file);
        return;
      }
      const name = path === '/' ? 'index.html' : path.slice(1);
      if (name !== 'index.html' && name !== 'app.js') return send(res, 404, 'text/plain', 'not found');
      send(res, 200, types[name.slice(name.lastIndexOf('.'))] as string, await readFile(publicDir + name, 'utf8'));
    })().catch((error: unknown) => send(res, 500, 'text/plain', String(error)));
  };
}
