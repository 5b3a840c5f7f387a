import type { Readable } from 'node:stream';
import t from 'tap';
import { apiKey, proxySetup } from './helpers.js';

const target = { environment: 'dev', providerConfigKey: 'fake', connectionId: 'c1' };

t.test('gateway.proxy.request: same credentials and target rules, answers as values', async (t) => {
  const s = await proxySetup(t, {
    respond: (req, res) => {
      if (req.url.includes('text')) {
        res.setHeader('content-type', 'text/csv');
        return void res.end('a,b\n1,2\n');
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'x-provider': 'yes' });
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          body: req.body.toString(),
          type: req.headers['content-type'] ?? null,
          custom: req.headers['x-custom'] ?? null,
        }),
      );
    },
  });
  const request = s.gw.gateway.proxy.request;
  const got = await request({
    ...target,
    path: '/v1/search?q=a%20b',
    query: { page: 2, tag: ['x', 'y'] },
    headers: { 'X-Custom': 'kept' },
  });
  t.equal(got.status, 200);
  t.equal(got.headers['x-provider'], 'yes');
  t.same(got.body, {
    method: 'GET',
    url: '/api/v1/search?q=a%20b&page=2&tag=x&tag=y',
    body: '',
    type: null,
    custom: 'kept',
  });
  t.equal(s.provider.received.at(-1)?.headers.authorization, `Bearer ${apiKey}`);

  const posted = await request({ ...target, method: 'post', path: 'v1/items', body: { name: 'n' } });
  t.equal(posted.status, 201);
  t.same(
    posted.body,
    { method: 'POST', url: '/api/v1/items', body: '{"name":"n"}', type: 'application/json', custom: null },
    'a value body goes as JSON; a path without "/" is under the base',
  );

  const text = await request({ ...target, path: '/v1/text' });
  t.equal(text.body, 'a,b\n1,2\n');
  const bytes = await request({ ...target, path: '/v1/text', responseType: 'buffer' });
  t.ok(Buffer.isBuffer(bytes.body));
  const stream = await request({ ...target, path: '/v1/text', responseType: 'stream' });
  const chunks: Buffer[] = [];
  for await (const chunk of stream.body as Readable) chunks.push(chunk as Buffer);
  t.equal(Buffer.concat(chunks).toString(), 'a,b\n1,2\n');

  await t.rejects(request({ ...target, connectionId: 'nope', path: '/x' }), {
    code: 'unknown_connection',
    status: 404,
  });
  await t.rejects(request({ ...target, path: '/x', retries: 11 }), { code: 'invalid_request' });
});

t.test('an aborted signal stops the provider request', async (t) => {
  let closed!: () => void;
  const providerSawClose = new Promise<void>((resolve) => {
    closed = resolve;
  });
  let arrived!: () => void;
  const providerGotIt = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const s = await proxySetup(t, {
    respond: (_req, res) => {
      res.on('close', () => closed());
      arrived();
    },
  });
  const controller = new AbortController();
  const pending = s.gw.gateway.proxy.request({ ...target, path: '/v1/slow', signal: controller.signal });
  await providerGotIt;
  controller.abort();
  await t.rejects(pending, { name: 'AbortError' });
  await providerSawClose;
  t.pass('the provider saw the request dropped');
});
