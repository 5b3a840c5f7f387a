import { trace, type Span, type SpanContext, type Tracer, type TracerProvider } from '@opentelemetry/api';
import t from 'tap';
import { proxyChannels } from '../../lib/proxy/index.js';
import { proxySetup } from '../proxy/helpers.js';
import { waitFor } from '../helpers/wait.js';

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
  status: number;
  ended: boolean;
}

/** A tracer provider that records what it is given (the API only: no SDK in the repository). */
function recordingProvider(recording = true) {
  const spans: Recorded[] = [];
  const context: SpanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
  };
  const tracer: Tracer = {
    startSpan(name) {
      const rec: Recorded = { name, attributes: {}, status: 0, ended: false };
      spans.push(rec);
      const span: Span = {
        spanContext: () => context,
        setAttribute: (k, v) => {
          rec.attributes[k] = v;
          return span;
        },
        setAttributes: (a) => {
          Object.assign(rec.attributes, a);
          return span;
        },
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: (s) => {
          rec.status = s.code;
          return span;
        },
        updateName: () => span,
        end: () => {
          rec.ended = true;
        },
        isRecording: () => recording,
        recordException: () => undefined,
      };
      return span;
    },
    startActiveSpan: (() => {
      throw new Error('not used');
    }) as Tracer['startActiveSpan'],
  };
  const provider: TracerProvider = { getTracer: () => tracer };
  return { provider, spans };
}

t.test('a proxied call is a span with the request id, integration, provider and status', async (t) => {
  const { provider, spans } = recordingProvider();
  const s = await proxySetup(t, { gateway: { tracing: { tracerProvider: provider } } });
  const res = await s.proxy('GET', '/v1/things?token=query-secret', { headers: { 'x-request-id': 'req-trace-1' } });
  t.equal(res.status, 200);
  await new Promise((r) => setTimeout(r, 50));
  const span = spans.find((x) => x.name === 'portico.proxy GET');
  t.ok(span?.ended, 'the span ended');
  t.match(span?.attributes, {
    'portico.request_id': 'req-trace-1',
    'portico.integration': 'fake',
    'portico.provider': 'fake-api',
    'http.request.method': 'GET',
    'url.path': '/v1/things',
    'http.response.status_code': 200,
  });
  t.notMatch(JSON.stringify(spans), /query-secret|sk_fake|c1/, 'no query string, credential or connection id');
});

t.test('a provider that cannot be reached makes an error span', async (t) => {
  const { provider, spans } = recordingProvider();
  const s = await proxySetup(t, {
    baseUrl: 'http://127.0.0.1:9/api',
    gateway: { tracing: { tracerProvider: provider } },
  });
  t.equal((await s.proxy('GET', '/v1/x')).status, 502);
  await new Promise((r) => setTimeout(r, 50));
  t.match(
    spans.find((x) => x.name === 'portico.proxy GET'),
    { ended: true, status: 2, attributes: { 'http.response.status_code': 502 } },
  );
});

t.test('without a registered tracer provider nothing subscribes: no event, no span, no cost', async (t) => {
  t.notOk((trace.getTracerProvider() as { getDelegate?: () => unknown }).getDelegate?.() === undefined);
  const s = await proxySetup(t);
  t.notOk(proxyChannels.callStart.hasSubscribers, 'no subscriber to the call events');
  t.equal((await s.proxy('GET', '/v1/x')).status, 200);
});

t.test('a provider registered globally with the API is used by default', async (t) => {
  const { provider, spans } = recordingProvider();
  t.ok(trace.setGlobalTracerProvider(provider));
  t.teardown(() => trace.disable());
  const s = await proxySetup(t);
  t.ok(proxyChannels.callStart.hasSubscribers);
  t.equal((await s.proxy('GET', '/v1/x')).status, 200);
  await new Promise((r) => setTimeout(r, 50));
  t.ok(spans.some((x) => x.name === 'portico.proxy GET' && x.ended));
});

t.test('a span that does not record gets no attributes', async (t) => {
  const { provider, spans } = recordingProvider(false);
  const s = await proxySetup(t, { gateway: { tracing: { tracerProvider: provider } } });
  t.equal((await s.proxy('GET', '/v1/x')).status, 200);
  await new Promise((r) => setTimeout(r, 50));
  t.match(spans, [{ name: 'portico.proxy GET', ended: true }], 'started and ended');
  t.same(spans[0]?.attributes, {}, 'no attribute object was built for it');
});

t.test('a token refresh and a webhook delivery are spans; the refresh is counted in /metrics', async (t) => {
  const { fakeTokenServer, harness, inMs, json, testProvider } = await import('../credentials/fixtures.js');
  const { receiver } = await import('../webhooks/helpers.js');
  const { devKey, prodKey } = await import('../helpers/gateway.js');
  const { fakeProvider } = await import('../helpers/http.js');
  const { provider, spans } = recordingProvider();
  const tokens = await fakeTokenServer(t, (_req, res) => json(res, 200, { access_token: 'at-new', expires_in: 3600 }));
  const api = await fakeProvider();
  t.teardown(() => api.close());
  const hook = await receiver();
  t.teardown(() => hook.close());
  const h = await harness(t, {
    providers: [
      testProvider('crm', 'OAUTH2', api.url, {
        authorization_url: 'https://example.com/a',
        token_url: `${tokens.url}/token`,
      }),
    ],
    environments: [
      { name: 'dev', secretKey: devKey, webhookUrl: hook.url },
      { name: 'prod', secretKey: prodKey },
    ],
    tracing: { tracerProvider: provider },
    metrics: { token: 'mt_trace_test_0123456789', processMetrics: false },
  });
  await h.create('/integrations', {
    unique_key: 'crm',
    provider: 'crm',
    credentials: { type: 'OAUTH2', client_id: 'id', client_secret: 'secret' },
  });
  await h.create('/connections', {
    provider_config_key: 'crm',
    connection_id: 'c',
    credentials: { type: 'OAUTH2', access_token: 'at-0', refresh_token: 'rt', expires_at: inMs(-1) },
  });
  const res = await h.gw.call('GET', '/proxy/v1/me', {
    headers: { 'provider-config-key': 'crm', 'connection-id': 'c' },
  });
  t.equal(res.status, 200);
  t.equal(tokens.received.length, 1, 'one refresh');
  await waitFor(() => spans.some((s) => s.name === 'portico.webhook_delivery' && s.ended), 'the delivery span');
  t.match(
    spans.find((s) => s.name === 'portico.token_refresh'),
    {
      ended: true,
      status: 0,
      attributes: { 'portico.integration': 'crm', 'portico.auth_mode': 'OAUTH2', 'portico.outcome': 'renewed' },
    },
  );
  t.match(
    spans.find((s) => s.name === 'portico.webhook_delivery'),
    {
      ended: true,
      attributes: { 'portico.environment': 'dev', 'portico.outcome': 'delivered', 'http.response.status_code': 200 },
    },
  );
  const metrics = await fetch(`${h.gw.url}/metrics`, {
    headers: { authorization: 'Bearer mt_trace_test_0123456789' },
  }).then((r) => r.text());
  t.match(metrics, /portico_token_refreshes_total\{provider="crm",auth_mode="OAUTH2",outcome="renewed"\} 1/);
});
