import { createServer, type Server } from 'node:http';
import type { Metrics } from '../../lib/telemetry/index.js';

/**
 * SERVICE_METRICS_PORT: `GET /metrics` on a listener of its own, for a scraper on a private
 * network; nothing else answers there (404), and the gateway's routes are not reachable.
 */
export async function startMetricsServer(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'unknown_route', message: 'Only GET /metrics answers here.' } }));
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body);
      },
      () => {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'server_error', message: 'The metrics could not be collected.' } }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
