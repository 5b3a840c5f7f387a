import { createPorticoClient, PorticoError, type PorticoClient } from '../client/index.js';
import type { CommandContext } from './command.js';
import { CliError, exitCodes, usageError } from './exit.js';

export interface GatewayTarget {
  url: string;
  client: PorticoClient;
}

/**
 * The gateway a command talks to: `--url`/`SERVICE_BASE_URL`, and the key: `--secret-key`, else (for
 * a deploy) `SERVICE_DEPLOY_KEY`, else `SERVICE_SECRET_KEY`: the names the server reads.
 */
export function gatewayTarget({ values, io }: CommandContext, purpose: 'deploy' | 'api' = 'api'): GatewayTarget {
  const url = typeof values.url === 'string' ? values.url : io.env.SERVICE_BASE_URL;
  const fromEnv = (name: string) => io.env[name] || undefined;
  const secretKey =
    typeof values['secret-key'] === 'string'
      ? values['secret-key']
      : ((purpose === 'deploy' ? fromEnv('SERVICE_DEPLOY_KEY') : undefined) ?? fromEnv('SERVICE_SECRET_KEY'));
  if (!url)
    throw usageError(
      'Name the gateway: --url <url> or SERVICE_BASE_URL (where the gateway is mounted, e.g. http://localhost:3003).',
    );
  if (!/^https?:\/\/[^/]/i.test(url)) throw usageError(`--url "${url}" is not an http(s) URL.`);
  if (!secretKey) {
    throw usageError(
      `Give the environment's ${purpose === 'deploy' ? 'deploy key: SERVICE_DEPLOY_KEY, or its secret key: ' : 'secret key: '}SERVICE_SECRET_KEY (or --secret-key).`,
    );
  }
  return { url, client: createPorticoClient({ baseUrl: url, secretKey }) };
}

/**
 * What a failed gateway call means for the command: no answer or a refused key is exit 3
 * (nothing about the scripts is wrong); any other refusal is exit 1 with the API's code.
 */
export function gatewayFailure(error: unknown, url: string, doing: string): CliError {
  if (!PorticoError.is(error)) {
    return new CliError(
      exitCodes.failed,
      'unexpected',
      `${doing} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (error.code === 'network_error') {
    return new CliError(
      exitCodes.gateway,
      'gateway_unreachable',
      `Cannot reach the gateway at ${url} (${doing}): ${error.message}`,
    );
  }
  if (error.status === 401 || error.status === 403) {
    return new CliError(
      exitCodes.gateway,
      error.code,
      `The gateway at ${url} refused the secret key (${error.code}): ${error.message}`,
    );
  }
  return new CliError(
    exitCodes.failed,
    error.code,
    `${doing}: the gateway answered ${error.status} ${error.code}: ${error.message}`,
    { status: error.status, ...error.details },
  );
}

/**
 * A kept-alive connection the gateway closed while this process was busy (the type-check holds
 * the event loop for seconds, so fetch's idle timer cannot retire it in time) fails the next
 * request as it is written: EPIPE, ECONNRESET, or "other side closed".
 */
function staleSocket(error: unknown): boolean {
  if (!PorticoError.is(error) || error.code !== 'network_error') return false;
  const inner = (error.cause as { cause?: { code?: unknown } } | undefined)?.cause;
  return ['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(String(inner?.code));
}

/**
 * Runs a gateway call, turning its failure into the command's exit. An `idempotent` call (one
 * whose repetition changes nothing more) is tried once more on a fresh connection after a stale one.
 */
export async function onGateway<T>(
  target: GatewayTarget,
  doing: string,
  call: (client: PorticoClient) => Promise<T>,
  options: { idempotent?: boolean } = {},
): Promise<T> {
  try {
    return await call(target.client);
  } catch (error) {
    if (options.idempotent && staleSocket(error)) return onGateway(target, doing, call);
    throw gatewayFailure(error, target.url, doing);
  }
}
