// The telemetry feature's one door: Prometheus metrics and OpenTelemetry spans, both fed by
// the other features' node:diagnostics_channel events.
export { createMetrics, type Metrics, type MetricsOptions } from './metrics.js';
export { createMetricsRoutes } from './metrics-route.js';
export { createTracing, type TracingOptions } from './tracing.js';
