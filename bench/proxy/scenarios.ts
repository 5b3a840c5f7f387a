/** What the harness measures: each target, and how a request to it is addressed. */
export const benchSecretKey = 'sk_bench_0123456789abcdef';

export type TargetName = 'direct' | 'bare' | 'bare-same' | `portico-${Setup}-${'api-key' | 'oauth2' | 'app'}`;

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
  /** Which process serves it: the bare forwarder's, the proxies' child (Portico in process), or a standalone server. */
  process: 'bare' | 'proxies' | 'standalone' | 'metrics' | 'none';
  /**
   * Which of the bench's processes of that kind (0, 1, …): every kind runs in several processes
   * (`--processes`), since the same code in two processes started alike can differ by more than
   * the margin measured (bench/README.md, "How it measures on a shared machine").
   */
  replica: number;
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

/** The targets served by one replica of the bench's processes; the direct calls only with the first. */
export function targets(ports: Ports, replica: number): Target[] {
  const list: Target[] = [];
  if (replica === 0) {
    list.push({
      name: 'direct',
      label: 'direct (no proxy)',
      port: ports.upstream,
      prefix: '',
      headers: {},
      process: 'none',
      replica,
    });
  }
  list.push(
    {
      name: 'bare',
      label: 'bare Koa + http-proxy',
      port: ports.bare,
      prefix: '',
      headers: {},
      process: 'bare',
      replica,
    },
    // The reference is sent only the path; Portico's calls also carry the headers the gateway
    // needs, which Node parses (and a forwarder would pass on). This row shows what they cost it.
    {
      name: 'bare-same',
      label: 'bare, sent the same headers',
      port: ports.bare,
      prefix: '',
      headers: porticoHeaders('key'),
      process: 'bare',
      replica,
    },
  );
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
        replica,
      });
    }
  }
  return list;
}
