/*
 * The reference every proxy figure is taken against: what a Koa app with http-proxy on a
 * keep-alive agent does, nothing more.
 */
import { Agent, createServer, type Server, type ServerResponse } from 'node:http';
import httpProxy from 'http-proxy';
import Koa from 'koa';

export function createBareForwarder(upstream: string): Server {
  const proxy = httpProxy.createProxyServer({
    target: upstream,
    agent: new Agent({ keepAlive: true, maxFreeSockets: 256 }),
  });
  proxy.on('error', (_error, _req, res) => {
    const out = res as ServerResponse;
    if (!out.headersSent) out.writeHead(502);
    out.end();
  });
  const app = new Koa();
  app.use((ctx) => {
    ctx.respond = false;
    proxy.web(ctx.req, ctx.res);
  });
  return createServer(app.callback());
}
