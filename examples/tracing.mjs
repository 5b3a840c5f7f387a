/**
 * Portico's spans exported over OTLP. Portico depends only on @opentelemetry/api; the SDK and
 * the exporter are yours to choose. This example uses the Node SDK and the OTLP/HTTP exporter:
 *
 *   npm install @opentelemetry/sdk-node @opentelemetry/exporter-trace-otlp-http
 *   npm run build
 *   OTEL_SERVICE_NAME=portico OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 node examples/tracing.mjs
 *
 * (A plain .mjs file, so the repository builds without those packages installed.) The SDK
 * starts first and registers its tracer provider with @opentelemetry/api; the gateway created
 * after it finds that provider and makes a span per proxied call (`portico.proxy GET`, with
 * `portico.request_id`, `portico.integration`, `portico.provider`, `http.response.status_code`),
 * per token renewal or app token mint, and per webhook delivery attempt. Incoming HTTP spans
 * from the SDK's own instrumentations, when you add them, become their parents.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter() });
sdk.start();

// Imported after the SDK started: the gateway looks for a registered provider when it is created.
const { readConfig } = await import('../dist/adapters/standalone/config.js');
const { startStandalone } = await import('../dist/adapters/standalone/server.js');
const standalone = await startStandalone(readConfig(process.env));

const stop = async () => {
  await standalone.stop();
  await sdk.shutdown(); // flushes the spans still buffered
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
