/** What the harness measures: each target, and how a request to it is addressed. */
export const benchSecretKey = 'sk_bench_0123456789abcdef';

export type TargetName = 'direct' | 'bare' | 'bare-2' | `portico-${Setup}-${'api-key' | 'oauth2' | 'app'}`;

/**
 * Where Portico runs: in the proxies' process with logs off or on (to a file), or as the
 * standalone server (its own process, logs to a file), also with metrics on (`GET /metrics`).
 */
export type Setup = 'silent' | 'logged' | 'standalone' | 'metrics';

export interface Ports {
  upstream: number;
  bare: number;
  portico: number;
  logged: number;
  /** Absent when the standalone server is not measured. */
  standalone: number | undefined;
  /** The same bare forwarder in a second process (beside the standalone rows). */
  bare2: number | undefined;
  /** The standalone server with metrics on (`SERVICE_METRICS_TOKEN`); absent with it. */
  metrics: number | undefined;
}

export interface Target {
  name: TargetName;
  label: string;
  port: number;
  /** Path prefix in front of the upstream path. */
  prefix: string;
  headers: Record<string, string>;
  /** Which process serves it: the proxies' child, or the standalone server. */
  process: 'proxies' | 'proxies-2' | 'standalone' | 'metrics' | 'none';
}

const porticoHeaders = (integration: string) => ({
  authorization: `Bearer ${benchSecretKey}`,
  'provider-config-key': integration,
  'connection-id': 'c',
});

const setups: { setup: Setup; label: string; port: (ports: Ports) => number | undefined }[] = [
  { setup: 'silent', label: 'logs off', port: (p) => p.portico },
  { setup: 'logged', label: 'logs → file', port: (p) => p.logged },
  { setup: 'standalone', label: 'standalone', port: (p) => p.standalone },
  { setup: 'metrics', label: 'standalone + metrics', port: (p) => p.metrics },
];
const modes = [
  ['api-key', 'API key', 'key'],
  ['oauth2', 'OAuth2', 'oauth'],
  ['app', 'APP', 'app'],
] as const;

export function targets(ports: Ports): Target[] {
  const list: Target[] = [
    { name: 'direct', label: 'direct (no proxy)', port: ports.upstream, prefix: '', headers: {}, process: 'none' },
    { name: 'bare', label: 'bare Koa + http-proxy', port: ports.bare, prefix: '', headers: {}, process: 'proxies' },
  ];
  // Across processes, CPU per request at 1 MiB moved by up to 2× with where the scheduler put
  // each process (the same forwarder, in two processes started alike): a second one shows it.
  if (ports.bare2 !== undefined) {
    list.push({
      name: 'bare-2',
      label: 'bare Koa + http-proxy, 2nd process',
      port: ports.bare2,
      prefix: '',
      headers: {},
      process: 'proxies-2',
    });
  }
  for (const { setup, label, port } of setups) {
    const at = port(ports);
    if (at === undefined) continue;
    for (const [mode, modeLabel, integration] of modes) {
      list.push({
        name: `portico-${setup}-${mode}`,
        label: `Portico ${label}, ${modeLabel}`,
        port: at,
        prefix: '/proxy',
        headers: porticoHeaders(integration),
        process: setup === 'standalone' || setup === 'metrics' ? setup : 'proxies',
      });
    }
  }
  return list;
}
