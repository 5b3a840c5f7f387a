import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { AuthMaterial } from '../credentials/index.js';
import { controlHeaderNames } from './control.js';
import type { ProviderBase } from './provider-base.js';

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, so a proxy never forwards them. */
const hopByHop = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
];

// `host` is the provider's; `expect` was answered by this server already (100-continue);
// `content-length` is the body step's to set (`frameBody`), like `transfer-encoding`.
const notForwarded = new Set([...hopByHop, ...controlHeaderNames, 'host', 'expect', 'content-length']);
// `Portico-Error` marks answers the gateway itself made; a provider must not be able to forge it.
const notReturned = new Set([...hopByHop, 'portico-error']);

/** Extra header names a `Connection` header declares hop-by-hop (`Connection: close, x-trace`). */
function connectionTokens(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined || value === 'keep-alive' || value === 'close') return undefined;
  const tokens = (Array.isArray(value) ? value.join(',') : value)
    .toLowerCase()
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t && t !== 'close' && t !== 'keep-alive');
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
 * Body framing (`content-length`/`transfer-encoding`) is left out here, for the body step to set.
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
 * The provider's response headers as a flat list (`[name, value, name, value, …]`), names as
 * the provider wrote them, without hop-by-hop headers and without the names in `drop` (lower
 * case). Repeated headers stay repeated. With `requestId`, the gateway's `X-Request-Id` is added
 * unless the provider sent its own. Node's `writeHead` sends such a list as it is, when
 * nothing was set on the response before (see `headerObject` for when something was).
 */
export function responseHeaderList(raw: readonly string[], drop?: ReadonlySet<string>, requestId?: string): string[] {
  const out: string[] = [];
  let listed: Set<string> | undefined;
  let ownId = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (notReturned.has(lower)) {
      if (lower === 'connection') listed = connectionTokens(value);
      continue;
    }
    if (drop?.has(lower)) continue;
    if (lower === 'x-request-id') ownId = true;
    out.push(name, value);
  }
  // Rare: headers the provider declared hop-by-hop in its Connection header.
  const kept = listed ? dropNames(out, listed) : out;
  if (requestId !== undefined && !ownId) kept.push('X-Request-Id', requestId);
  return kept;
}

function dropNames(list: readonly string[], names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i += 2) {
    if (!names.has((list[i] as string).toLowerCase())) out.push(list[i] as string, list[i + 1] as string);
  }
  return out;
}

/**
 * A flat header list as an object: names lower-cased (HTTP field names are case-insensitive),
 * repeated names as arrays. For a response that already has headers set (an Express app's
 * `X-Powered-By`): Node's `writeHead` then merges a list through `setHeader`, which would keep
 * only the last of repeated names (two `Set-Cookie`s would become one).
 */
export function headerObject(list: readonly string[]): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (let i = 0; i < list.length; i += 2) {
    const name = (list[i] as string).toLowerCase();
    const value = list[i + 1] as string;
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else out[name] = Array.isArray(previous) ? [...previous, value] : [previous as string, value];
  }
  return out;
}

/** The provider's response headers (as `responseHeaderList`) as an object. */
export const responseHeaders = (raw: readonly string[], drop?: ReadonlySet<string>): OutgoingHttpHeaders =>
  headerObject(responseHeaderList(raw, drop));
