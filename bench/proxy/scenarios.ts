/** What the harness measures: each target, and how a request to it is addressed. */
export const benchSecretKey = 'sk_bench_0123456789abcdef';

export type TargetName = 'direct' | 'bare' | 'portico-api-key' | 'portico-oauth2' | 'portico-app';

export interface Ports {
  upstream: number;
  bare: number;
  portico: number;
}

export interface Target {
  name: TargetName;
  label: string;
  port: number;
  /** Path prefix in front of the upstream path. */
  prefix: string;
  headers: Record<string, string>;
}

const porticoHeaders = (integration: string) => ({
  authorization: `Bearer ${benchSecretKey}`,
  'provider-config-key': integration,
  'connection-id': 'c',
});

export function targets(ports: Ports): Target[] {
  return [
    { name: 'direct', label: 'direct (no proxy)', port: ports.upstream, prefix: '', headers: {} },
    { name: 'bare', label: 'bare Koa + http-proxy', port: ports.bare, prefix: '', headers: {} },
    { name: 'portico-api-key', label: 'Portico, API key', port: ports.portico, prefix: '/proxy', headers: porticoHeaders('key') },
    { name: 'portico-oauth2', label: 'Portico, OAuth2', port: ports.portico, prefix: '/proxy', headers: porticoHeaders('oauth') },
    { name: 'portico-app', label: 'Portico, APP', port: ports.portico, prefix: '/proxy', headers: porticoHeaders('app') },
  ];
}
