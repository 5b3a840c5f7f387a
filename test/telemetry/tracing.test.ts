import { trace, type Span, type SpanContext, type Tracer, type TracerProvider } from '@opentelemetry/api';
import t from 'tap';
import { proxyChannels } from '../../lib/proxy/index.js';
import { proxySetup } from '../proxy/helpers.js';

interface Recorded { name: string; attributes: Record<string, unknown>; status: number; ended: boolean }

/** A tracer provider that records what it is given (the API only: no SDK in the repository). */
function recordingProvider(recording = true) {
  const spans: Recorded[] = [];
  const context: SpanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
  const tracer: Tracer = {
    startSpan(name) {
      const rec: Recorded = { name, attributes: {}, status: 0, ended: false };
      spans.push(rec);
      const span: Span = {
        spanContext: () => context,
        setAttribute: (k, v) => { rec.attributes[k] = v; return span; },
        setAttributes: (a) => { Object.assign(rec.attributes, a); return span; },
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: (s) => { rec.status = s.code; return span; },
        updateName: () => span,
        end: () => { rec.ended = true; },
        isRecording: () => recording,
        recordException: () => undefined,
      };
      return span;
    },
    startActiveSpan: (() => { throw new Error('not used'); }) as Tracer['startActiveSpan'],
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
    'portico.request_id': 'req-trace-1', 'portico.integration': 'fake', 'portico.provider': 'fake-api',
    'http.request.method': 'GET', 'url.path': '/v1/things', 'http.response.status_code': 200,
  });
  t.notMatch(JSON.stringify(spans), /query-secret|sk_fake|c1/, 'no query string, credential or connection id');
});

t.test('a provider that cannot be reached makes an error span', async (t) => {
  const { provider, spans } = recordingProvider();
  const s = await proxySetup(t, { baseUrl: 'http://127.0.0.1:9/api', gateway: { tracing: { tracerProvider: provider } } });
  t.equal((await s.proxy('GET', '/v1/x')).status, 502);
  await new Promise((r) => setTimeout(r, 50));
  t.match(spans.find((x) => x.name === 'portico.proxy GET'), { ended: true, status: 2, attributes: { 'http.response.status_code': 502 } });
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
