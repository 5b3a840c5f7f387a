import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { AuthMaterial } from '../credentials/index.js';
import { controlHeaderNames } from './control.js';
import type { ProviderBase } from './provider-base.js';

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, so a proxy never forwards them. */
const hopByHop = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings'];

// `host` is the provider's; `expect` was answered by this server already (100-continue).
const notForwarded = new Set([...hopByHop, ...controlHeaderNames, 'host', 'expect']);
// `Portico-Error` marks answers the gateway itself made; a provider must not be able to forge it.
const notReturned = new Set([...hopByHop, 'portico-error']);

/** Extra header names a `Connection` header declares hop-by-hop (`Connection: close, x-trace`). */
function connectionTokens(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined || value === 'keep-alive' || value === 'close') return undefined;
  const tokens = (Array.isArray(value) ? value.join(',') : value).toLowerCase().split(',')
    .map((t) => t.trim()).filter((t) => t && t !== 'close' && t !== 'keep-alive');
  return tokens.length > 0 ? new Set(tokens) : undefined;
}

export interface RequestHeaderInput {
  incoming: IncomingHttpHeaders;
  base: ProviderBase;
  auth: AuthMaterial;
  /** Ask the provider for compressed bodies: the gateway decodes them. */
  acceptCompressed: boolean;
}

/**
 * The headers sent to the provider: catalog defaults, then every caller header that is not
 * hop-by-hop or a gateway control header, then the credentials (which always win).
 * Body framing (`content-length`/`transfer-encoding`) is set by the body step.
 */
export function requestHeaders({ incoming, base, auth, acceptCompressed }: RequestHeaderInput): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of base.headers) out[name] = value;
  const listed = connectionTokens(incoming.connection);
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || notForwarded.has(name) || listed?.has(name)) continue;
    out[name] = value;
  }
  for (const name in auth.headers) out[name.toLowerCase()] = auth.headers[name];
  out.host = base.host;
  if (acceptCompressed) out['accept-encoding'] = 'gzip, deflate, br';
  return out;
}

/**
 * The provider's response headers, without hop-by-hop headers and without the names in `drop`
 * (lower case). Names are lower-cased (HTTP field names are case-insensitive); repeated headers
 * stay repeated (an array). An object, not a flat list: Node 20's `writeHead` keeps only the
 * last of repeated names from a list when headers were set before (X-Request-Id).
 */
export function responseHeaders(raw: readonly string[], drop?: ReadonlySet<string>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  let listed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (notReturned.has(name)) {
      if (name === 'connection') listed = connectionTokens(value);
      continue;
    }
    if (drop?.has(name)) continue;
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else out[name] = Array.isArray(previous) ? [...previous, value] : [previous as string, value];
  }
  // Rare: headers the provider declared hop-by-hop in its Connection header.
  if (listed) for (const name of listed) delete out[name];
  return out;
}
