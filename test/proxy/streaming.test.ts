import { createHash } from 'node:crypto';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { devKey, startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/http.js';
import { apiKey, providerEntry } from './helpers.js';

const mib = 1024 * 1024;
/** 1 MiB holding every byte value, repeated to make large bodies without holding them. */
const block = Buffer.alloc(mib).map((_, i) => (i * 7 + (i >> 10)) % 256);

function digestOf(totalMib: number) {
  const hash = createHash('sha256');
  for (let i = 0; i < totalMib; i++) hash.update(block);
  return hash.digest('hex');
}

async function setup(t: Test, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const provider = await listen(handler);
  const gw = await startGateway(t, { providers: [providerEntry('fake-api', provider.url)] });
  t.teardown(() => provider.close());
  await gw.call('POST', '/integrations', { body: { unique_key: 'fake', provider: 'fake-api' } });
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'fake', connection_id: 'c1', credentials: { type: 'API_KEY', apiKey } },
  });
  const { port } = new URL(gw.url);
  const open = (method: string, path: string, headers: Record<string, string> = {}) =>
    httpRequest({
      host: '127.0.0.1',
      port,
      method,
      path: `/proxy${path}`,
      headers: { authorization: `Bearer ${devKey}`, 'provider-config-key': 'fake', 'connection-id': 'c1', ...headers },
    });
  return { open };
}

const responseOf = (req: ClientRequest) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });

async function hashStream(stream: AsyncIterable<Buffer>) {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { digest: hash.digest('hex'), size };
}

async function jsonOf(res: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Writes `totalMib` MiB, honouring back-pressure. */
async function writeBlocks(req: ClientRequest, totalMib: number) {
  for (let i = 0; i < totalMib; i++) {
    if (!req.write(block)) await new Promise((resolve) => req.once('drain', resolve));
  }
  req.end();
}

t.test('uploads stream byte for byte, with a length or chunked, any content type', async (t) => {
  const { open } = await setup(t, async (req, res) => {
    const { digest, size } = await hashStream(req);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        digest,
        size,
        type: req.headers['content-type'],
        length: req.headers['content-length'] ?? null,
        chunked: req.headers['transfer-encoding'] ?? null,
      }),
    );
  });
  const expected = digestOf(48);
  const sized = open('PUT', '/upload', {
    'content-type': 'application/octet-stream',
    'content-length': String(48 * mib),
  });
  const sizedResponse = responseOf(sized);
  await writeBlocks(sized, 48);
  const sizedBody = await jsonOf(await sizedResponse);
  t.same(
    sizedBody,
    { digest: expected, size: 48 * mib, type: 'application/octet-stream', length: String(48 * mib), chunked: null },
    'a 48 MiB upload with a length arrives intact, length kept',
  );

  const chunked = open('POST', '/upload', { 'content-type': 'image/png' });
  const chunkedResponse = responseOf(chunked);
  await writeBlocks(chunked, 48);
  const chunkedBody = await jsonOf(await chunkedResponse);
  t.same(
    chunkedBody,
    { digest: expected, size: 48 * mib, type: 'image/png', length: null, chunked: 'chunked' },
    'a chunked 48 MiB upload arrives intact, still chunked',
  );

  const deleted = open('DELETE', '/upload', { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
  const deletedResponse = responseOf(deleted);
  await writeBlocks(deleted, 1);
  t.equal((await jsonOf(await deletedResponse)).digest, digestOf(1), 'a chunked DELETE body is not dropped');
});

t.test('downloads stream byte for byte, with a length or chunked', async (t) => {
  const { open } = await setup(t, async (req, res) => {
    const sized = req.url?.includes('sized');
    res.writeHead(200, { 'content-type': 'application/zip', ...(sized ? { 'content-length': String(64 * mib) } : {}) });
    for (let i = 0; i < 64; i++) {
      if (!res.write(block)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  });
  const expected = digestOf(64);
  for (const kind of ['sized', 'chunked']) {
    const req = open('GET', `/download/${kind}`);
    req.end();
    const res = await responseOf(req);
    t.equal(res.headers['content-type'], 'application/zip');
    t.equal(
      res.headers['content-length'],
      kind === 'sized' ? String(64 * mib) : undefined,
      `${kind}: the length is the provider's`,
    );
    t.same(await hashStream(res), { digest: expected, size: 64 * mib }, `${kind}: 64 MiB arrive intact`);
  }
});

t.test('bytes flow before either body is complete (nothing is buffered)', async (t) => {
  let providerGotFirst!: () => void;
  const firstArrived = new Promise<void>((resolve) => {
    providerGotFirst = resolve;
  });
  let clientGotFirst!: () => void;
  const firstReturned = new Promise<void>((resolve) => {
    clientGotFirst = resolve;
  });
  let providerFinished = false;
  const { open } = await setup(t, (req, res) => {
    req.once('data', () => providerGotFirst());
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first ');
    // The rest only comes once the caller has read the first part through the gateway.
    void firstReturned.then(async () => {
      for await (const _ of req) {
        /* drain the upload */
      }
      providerFinished = true;
      res.end('second');
    });
  });
  const req = open('POST', '/echo', { 'content-type': 'text/plain' });
  req.write('upload part one');
  await firstArrived;
  t.pass('the provider got the first part of the upload while the caller had not finished it');
  const res = await responseOf(req);
  const first = await new Promise<string>((resolve) => res.once('data', (c: Buffer) => resolve(c.toString())));
  t.equal(first, 'first ');
  t.notOk(providerFinished, 'the caller read the first part while the provider was still writing');
  clientGotFirst();
  req.end('upload part two');
  const rest: Buffer[] = [];
  for await (const chunk of res) rest.push(chunk as Buffer);
  t.equal(Buffer.concat(rest).toString(), 'second');
});

t.test('a caller who reads slowly slows the provider down: the gateway does not hold the body', async (t) => {
  const total = 256;
  let written = 0;
  const { open } = await setup(t, async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total * mib) });
    for (let i = 0; i < total; i++) {
      const more = res.write(block);
      written += mib;
      if (!more) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  });
  const req = open('GET', '/download/slow-reader');
  req.end();
  const res = await responseOf(req);
  res.pause();
  // The caller reads nothing for a while: what the provider got to write is what the buffers on
  // the way hold (sockets and streams), not the body.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.ok(written < 64 * mib, `the provider wrote ${written / mib} MiB of ${total} while the caller read nothing`);
  t.same(await hashStream(res), { digest: digestOf(total), size: total * mib }, 'then every byte arrives, intact');
});

t.test("a provider that reads slowly slows the caller's upload down: the gateway does not hold the body", async (t) => {
  const total = 256;
  let startReading!: () => void;
  const reading = new Promise<void>((resolve) => {
    startReading = resolve;
  });
  const { open } = await setup(t, async (req, res) => {
    await reading;
    const got = await hashStream(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(got));
  });
  const req = open('POST', '/upload/slow-reader', {
    'content-type': 'application/octet-stream',
    'content-length': String(total * mib),
  });
  let sent = 0;
  const writing = (async () => {
    for (let i = 0; i < total; i++) {
      const more = req.write(block);
      sent += mib;
      if (!more) await new Promise((resolve) => req.once('drain', resolve));
    }
  })();
  // The provider reads nothing for a while: what the caller got to send is what the buffers on
  // the way hold, not the body.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.ok(sent < 64 * mib, `the caller sent ${sent / mib} MiB of ${total} while the provider read nothing`);
  startReading();
  await writing;
  req.end();
  t.same(
    await jsonOf(await responseOf(req)),
    { digest: digestOf(total), size: total * mib },
    'then every byte arrives, intact',
  );
});
