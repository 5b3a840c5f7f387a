import {
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { RefreshEvent } from '../credentials/index.js';
import type { ProxyCallEvent } from '../proxy/index.js';
import type { WebhookAttemptEvent } from '../webhooks/index.js';
import { createSubscriptions } from './subscriptions.js';

export interface TracingOptions {
  /** Where spans go. Default: the provider registered with `@opentelemetry/api` (by an SDK) before the gateway was created. */
  tracerProvider?: TracerProvider;
}

// What the API answers with when no SDK registered a provider (the same object every time).
const noopProvider = new ProxyTracerProvider().getDelegate();

/** The globally registered provider, or undefined when only the API's no-op is there. */
function registeredProvider(): TracerProvider | undefined {
  const provider = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  return (provider.getDelegate?.() ?? provider) === noopProvider ? undefined : provider;
}

/**
 * Spans for the proxy call, token renewals (and app token mints) and webhook delivery
 * attempts, made from the features' diagnostics events. Without a tracer provider nothing
 * subscribes, so the features do not even build their events: no cost. With one, attributes
 * are set only on spans that record (a sampler may drop them).
 */
export function createTracing(options: TracingOptions = {}) {
  const provider = options.tracerProvider ?? registeredProvider();
  const subscriptions = createSubscriptions();
  if (provider) subscribe(provider.getTracer('portico'), subscriptions);
  return { enabled: provider !== undefined, close: () => subscriptions.close() };
}

function subscribe(tracer: Tracer, subscriptions: ReturnType<typeof createSubscriptions>): void {
  const spans = new WeakMap<object, Span>();
  const start = (event: object, name: string, kind: SpanKind, attributes: () => Record<string, string | number>) => {
    const span = tracer.startSpan(name, { kind });
    if (span.isRecording()) span.setAttributes(attributes());
    spans.set(event, span);
  };
  const end = (event: object, failed: boolean, attributes: () => Record<string, string | number>) => {
    const span = spans.get(event);
    if (!span) return;
    spans.delete(event);
    if (span.isRecording()) {
      span.setAttributes(attributes());
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  subscriptions.on<ProxyCallEvent>('portico:proxy:call:start', (e) =>
    start(e, `portico.proxy ${e.method}`, SpanKind.CLIENT, () => ({
      'portico.request_id': e.requestId ?? '',
      'portico.environment': e.environment,
      'portico.integration': e.providerConfigKey,
      'portico.provider': e.provider,
      'http.request.method': e.method,
      'server.address': e.host,
      'url.path': e.path,
    })),
  );
  subscriptions.on<ProxyCallEvent>('portico:proxy:call:end', (e) =>
    end(e, (e.status ?? 0) === 0 || (e.status ?? 0) >= 500, () => ({
      'http.response.status_code': e.status ?? 0,
    })),
  );

  subscriptions.on<RefreshEvent>('portico:credentials:refresh:start', (e) =>
    start(e, e.authMode === 'APP' ? 'portico.app_token_mint' : 'portico.token_refresh', SpanKind.CLIENT, () => ({
      'portico.environment': e.environment,
      'portico.integration': e.providerConfigKey,
      'portico.provider': e.provider,
      'portico.auth_mode': e.authMode,
    })),
  );
  subscriptions.on<RefreshEvent>('portico:credentials:refresh:end', (e) =>
    end(e, e.outcome !== 'renewed', () => ({
      'portico.outcome': e.outcome ?? 'error',
    })),
  );

  subscriptions.on<WebhookAttemptEvent>('portico:webhooks:attempt:start', (e) =>
    start(e, 'portico.webhook_delivery', SpanKind.CLIENT, () => ({
      'portico.environment': e.environment,
      'portico.delivery_id': e.deliveryId,
      'portico.webhook_type': e.type,
      'portico.attempt': e.attempt,
    })),
  );
  subscriptions.on<WebhookAttemptEvent>('portico:webhooks:attempt:end', (e) =>
    end(e, e.outcome !== 'delivered', () => ({
      'portico.outcome': e.outcome ?? 'abandoned',
      ...(e.status != null ? { 'http.response.status_code': e.status } : {}),
    })),
  );
}
