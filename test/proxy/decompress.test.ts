import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { devKey } from '../helpers/gateway.js';
import { proxySetup } from './helpers.js';

const text = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item number ${i}` })) });
const encoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  'deflate-raw': deflateRawSync,
  br: brotliCompressSync,
  'gzip-then-br': (b) => brotliCompressSync(gzipSync(b)),
};
const headerOf: Record<string, string> = { 'deflate-raw': 'deflate', 'gzip-then-br': 'gzip, br' };

/** Answers `/enc/<coding>` with the body in that coding (with a length); `/enc/corrupt` with broken gzip. */
function compressing(req: { url: string }, res: import('node:http').ServerResponse) {
  const coding = req.url.split('/').pop()?.split('?')[0] ?? '';
  if (coding === 'corrupt') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(Buffer.concat([gzipSync(Buffer.from(text)).subarray(0, 40), Buffer.alloc(64, 7)]));
    return;
  }
  const encode = encoders[coding];
  const body = encode ? encode(Buffer.from(text)) : Buffer.from('plain, but labelled zstd');
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-encoding': headerOf[coding] ?? (encode ? coding : 'zstd'),
    'content-length': String(body.length),
    etag: '"v1"',
  });
  res.end(req.url.includes('head') ? undefined : body);
}

t.test('with proxy.decompress, gzip, deflate (zlib or raw) and br come back decoded', async (t) => {
  const s = await proxySetup(t, { respond: compressing, proxy: { decompress: true } });
  for (const coding of Object.keys(encoders)) {
    const res = await s.proxy('GET', `/enc/${coding}`);
    t.equal(res.status, 200, coding);
    t.equal(res.body.toString(), text, `${coding}: decoded body`);
    t.notOk(res.headers['content-encoding'], `${coding}: content-encoding removed`);
    t.notOk(res.headers['content-length'], `${coding}: the encoded length is not claimed`);
    t.equal(res.headers.etag, '"v1"', `${coding}: other headers kept`);
    t.equal(
      s.provider.received.at(-1)?.headers['accept-encoding'],
      'gzip, deflate, br',
      `${coding}: the gateway asks for what it can decode`,
    );
  }
  const unknown = await s.proxy('GET', '/enc/zstd');
  t.equal(unknown.headers['content-encoding'], 'zstd', 'a coding the gateway cannot decode passes through untouched');
  t.equal(unknown.body.toString(), 'plain, but labelled zstd');
});

t.test('per request: Decompress: true turns it on, Decompress: false off', async (t) => {
  const s = await proxySetup(t, { respond: compressing });
  const raw = await s.proxy('GET', '/enc/gzip', { headers: { 'accept-encoding': 'gzip' } });
  t.equal(raw.headers['content-encoding'], 'gzip', 'by default the body passes encoded');
  t.same(raw.body, gzipSync(Buffer.from(text)), 'byte for byte');
  t.equal(raw.headers['content-length'], String(raw.body.length));
  t.equal(s.provider.received.at(-1)?.headers['accept-encoding'], 'gzip', "the caller's Accept-Encoding is forwarded");
  const decoded = await s.proxy('GET', '/enc/br', { headers: { decompress: 'true' } });
  t.equal(decoded.body.toString(), text);
  t.notOk(decoded.headers['content-encoding']);
  t.equal(
    (await s.proxy('GET', '/enc/gzip', { headers: { decompress: 'maybe' } })).status,
    400,
    'Decompress must be true or false',
  );

  const off = await proxySetup(t, { respond: compressing, proxy: { decompress: true } });
  const kept = await off.proxy('GET', '/enc/deflate', {
    headers: { decompress: 'false', 'accept-encoding': 'deflate' },
  });
  t.equal(kept.headers['content-encoding'], 'deflate', 'Decompress: false overrides the catalog');
  t.same(kept.body, deflateSync(Buffer.from(text)));
});

t.test('HEAD keeps no stale length; a corrupt body cuts the response', async (t) => {
  const s = await proxySetup(t, { respond: compressing, proxy: { decompress: true } });
  const head = await s.proxy('HEAD', '/enc/head/gzip');
  t.equal(head.status, 200);
  t.notOk(head.headers['content-length'] ?? head.headers['content-encoding']);
  const { port } = new URL(s.gw.url);
  const outcome = await new Promise<string>((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/proxy/enc/corrupt',
        headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1' },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve('complete'));
        res.on('error', () => resolve('cut'));
        res.on('aborted', () => resolve('cut'));
      },
    );
    req.on('error', () => resolve('cut'));
    req.end();
  });
  t.equal(outcome, 'cut', 'an undecodable body is not passed off as complete');
});

t.test('the programmatic API decodes by default and states the decoded length', async (t) => {
  const s = await proxySetup(t, { respond: compressing });
  const res = await s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/enc/gzip',
  });
  t.same(res.body, JSON.parse(text));
  t.equal(res.headers['content-length'], String(Buffer.byteLength(text)));
  t.notOk(res.headers['content-encoding']);
  const bytes = await s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/enc/br',
    decompress: false,
    responseType: 'buffer',
  });
  t.same(bytes.body, brotliCompressSync(Buffer.from(text)));
  const corrupt = s.gw.gateway.proxy.request({
    environment: 'dev',
    providerConfigKey: 'fake',
    connectionId: 'c1',
    path: '/enc/corrupt',
  });
  await t.rejects(corrupt, { code: 'upstream_error' });
});
