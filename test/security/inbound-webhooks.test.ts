import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import t from 'tap';
import type { Test } from 'tap';
import { devKey, startGateway, type TestGateway } from '../helpers/gateway.js';
import { appKeyPair } from '../helpers/keys.js';

// Attacker tests for issue item 5: provider webhooks are verified before they cost memory.

const secret = 'inbound-secret-0123456789';
const MiB = 1024 * 1024;

async function start(t: Test, webhooks: Record<string, number> = {}) {
  const gw = await startGateway(t, {
    webhooks: { inboundBodyLimit: MiB, inboundInFlightBytes: 2 * MiB, inboundReadTimeoutMs: 1_000, ...webhooks },
  });
  const credentials = {
    type: 'APP',
    app_id: '123456',
    app_link: 'https://github.com/apps/portico-test',
    private_key: appKeyPair().privateKey,
  };
  for (const [key, extra] of [
    ['gh-app', { webhook_secret: secret }],
    ['gh-nosecret', {}],
  ] as const) {
    const res = await gw.call('POST', '/integrations', {
      body: { unique_key: key, provider: 'github-app', credentials: { ...credentials, ...extra } },
    });
    if (res.status !== 201) throw new Error(res.text);
  }
  return gw;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  bodyBytesSent: number;
}

/**
 * A POST that declares `declared` bytes (or streams without a length), sends `send` of them and
 * then waits: an answer that comes while the body is still owed was given without reading it.
 */
function post(
  gw: TestGateway,
  path: string,
  headers: Record<string, string>,
  opts: { declared?: number; send?: Buffer; hang?: boolean },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(gw.url + path);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(opts.declared !== undefined ? { 'content-length': String(opts.declared) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            bodyBytesSent: opts.send?.length ?? 0,
          });
          req.destroy();
        });
      },
    );
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.flushHeaders();
    if (opts.send) req.write(opts.send);
    if (!opts.hang) req.end();
  });
}

const sign = (body: Buffer | string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const wellFormed = `sha256=${'0'.repeat(64)}`;

t.test(
  'no secret, no or a malformed signature header, an unknown integration: answered before the body is read, all alike',
  async (t) => {
    const gw = await start(t);
    const cases: [string, string, Record<string, string>][] = [
      ['no signature header', '/webhook/dev/gh-app', {}],
      ['a malformed signature header', '/webhook/dev/gh-app', { 'x-hub-signature-256': 'sha256=nothex' }],
      ['an integration without a webhook secret', '/webhook/dev/gh-nosecret', { 'x-hub-signature-256': wellFormed }],
      ['an unknown integration', '/webhook/dev/nope', { 'x-hub-signature-256': wellFormed }],
      ['an unknown environment', '/webhook/staging/gh-app', { 'x-hub-signature-256': wellFormed }],
    ];
    const answers: Answer[] = [];
    for (const [label, path, headers] of cases) {
      // 900 KiB declared, nothing sent: only an answer given without reading the body arrives.
      const answer = await post(gw, path, headers, { declared: 900 * 1024, hang: true });
      t.equal(answer.status, 401, label);
      t.equal(answer.headers.connection, 'close', `${label}: the unread body is dropped with the connection`);
      answers.push(answer);
    }
    t.same(new Set(answers.map((a) => a.body)).size, 1, 'one answer for every refusal: nothing to probe');
    t.match(JSON.parse(answers[0]?.body ?? '{}'), { error: { code: 'invalid_webhook_signature' } });
  },
);

t.test('a wrong signature over a body that was read gives the same answer; a right one is accepted', async (t) => {
  const gw = await start(t);
  const body = Buffer.from(JSON.stringify({ action: 'opened', installation: { id: 1 } }));
  const wrong = await post(
    gw,
    '/webhook/dev/gh-app',
    { 'x-hub-signature-256': wellFormed },
    { declared: body.length, send: body },
  );
  const unknown = await post(
    gw,
    '/webhook/dev/nope',
    { 'x-hub-signature-256': wellFormed },
    { declared: body.length, send: body },
  );
  t.equal(wrong.status, 401);
  t.equal(wrong.body, unknown.body);
  const right = await post(
    gw,
    '/webhook/dev/gh-app',
    { 'x-hub-signature-256': sign(body) },
    { declared: body.length, send: body },
  );
  t.equal(right.status, 202, right.body);
});

t.test(
  'the in-flight byte budget: beyond it, 503 with Retry-After before reading; room again once bodies are done',
  async (t) => {
    const gw = await start(t);
    const headers = { 'x-hub-signature-256': wellFormed };
    // Two bodies of 1 MiB declared and left hanging take the whole 2 MiB budget.
    const hanging = [
      post(gw, '/webhook/dev/gh-app', headers, { declared: MiB, send: Buffer.alloc(1024), hang: true }),
      post(gw, '/webhook/dev/gh-app', headers, { declared: MiB, send: Buffer.alloc(1024), hang: true }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await post(gw, '/webhook/dev/gh-app', headers, { declared: 64 * 1024, hang: true });
    t.equal(refused.status, 503);
    t.equal(refused.headers['retry-after'], '5');
    t.match(JSON.parse(refused.body), { error: { code: 'service_unavailable' } });
    // Without a declared length the budget is taken chunk by chunk.
    const chunked = await post(gw, '/webhook/dev/gh-app', headers, { send: Buffer.alloc(256 * 1024), hang: true });
    t.equal(chunked.status, 503, 'a streamed body beyond the budget');

    // The read deadline frees the hanging bodies' share.
    const timedOut = await Promise.all(hanging);
    t.same(
      timedOut.map((a) => a.status),
      [408, 408],
      'bodies that do not arrive in time are dropped',
    );
    const body = Buffer.from('{"zen":"ok"}');
    const after = await post(
      gw,
      '/webhook/dev/gh-app',
      { 'x-hub-signature-256': sign(body) },
      { declared: body.length, send: body },
    );
    t.equal(after.status, 202, 'the budget was given back');
  },
);

t.test('the per-request limit: a declared or streamed body beyond it is refused (413)', async (t) => {
  const gw = await start(t);
  const headers = { 'x-hub-signature-256': wellFormed };
  const declared = await post(gw, '/webhook/dev/gh-app', headers, { declared: MiB + 1, hang: true });
  t.equal(declared.status, 413);
  const streamed = await post(gw, '/webhook/dev/gh-app', headers, { send: Buffer.alloc(MiB + 1024), hang: true });
  t.equal(streamed.status, 413);
  t.equal(
    (await gw.call('GET', '/webhooks/deliveries?type=forward', { key: devKey })).json.data.length,
    0,
    'nothing was forwarded',
  );
});
