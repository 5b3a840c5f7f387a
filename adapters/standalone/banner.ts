import { maskUrl } from './secrets.js';
import type { Environment } from '../../lib/environments/index.js';
import type { StandaloneConfig } from './config.js';
import { variableSuffix } from './environment-config.js';

export interface BannerFacts {
  config: StandaloneConfig;
  /** The address links are built from (SERVICE_BASE_URL or `http://localhost:<port>`). */
  publicUrl: string;
  port: number;
  metricsPort: number | undefined;
  environments: readonly Environment[];
  generated: readonly { name: string; file: string | undefined; created: boolean }[];
}

/**
 * What the server prints at start: where it is (the same host as the links it makes), and for
 * each environment the `export` lines the CLI and the SDK examples read. A configured secret
 * key is never printed: its line names the variable it came from.
 */
export function banner(facts: BannerFacts): string[] {
  const { config, publicUrl, environments, generated } = facts;
  const lines = [
    `Portico gateway listening on ${publicUrl} (interface ${config.host}:${facts.port}; store: ${maskUrl(config.storeUrl)}; environments: ${environments.map((e) => e.name).join(', ')})`,
  ];
  if (facts.metricsPort !== undefined)
    lines.push(`Metrics: GET http://${config.host}:${facts.metricsPort}/metrics (SERVICE_METRICS_PORT)`);
  else if (config.metricsToken)
    lines.push(`Metrics: GET ${publicUrl}/metrics with "Authorization: Bearer $SERVICE_METRICS_TOKEN"`);
  const several = environments.length > 1;
  for (const env of environments) {
    const dev = generated.find((g) => g.name === env.name);
    const variable = several ? `SERVICE_SECRET_KEY_${variableSuffix(env.name)}` : 'SERVICE_SECRET_KEY';
    if (dev) {
      lines.push(
        dev.file
          ? `No ${variable}: ${dev.created ? 'generated' : 'using'} the development key of environment "${env.name}" in ${dev.file}.`
          : `No ${variable}: a development key for environment "${env.name}", for this run only.`,
      );
    }
    lines.push(`Environment "${env.name}": for the CLI (portico) and the SDK,`);
    lines.push(`  export SERVICE_BASE_URL=${publicUrl}`);
    lines.push(`  export SERVICE_SECRET_KEY=${dev ? env.secretKey : `"$${variable}"`}`);
  }
  const first = environments[0];
  if (first && generated.some((g) => g.name === first.name)) {
    lines.push(`Try: curl -H "Authorization: Bearer ${first.secretKey}" ${publicUrl}/providers`);
  }
  return lines;
}
