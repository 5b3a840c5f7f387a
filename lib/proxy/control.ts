import type { IncomingHttpHeaders } from 'node:http';
import { fail } from '../errors.js';
import { maxRetries } from './options.js';

/**
 * Headers that steer the gateway. They are read here and never reach the provider
 * (nor does the caller's `Authorization`, which carries the gateway's secret key).
 */
export const controlHeaderNames = [
  'authorization',
  'provider-config-key',
  'connection-id',
  'retries',
  'paginate',
  'paginate-max-items',
  'paginate-max-pages',
  'decompress',
] as const;

export interface PaginateRequest {
  /** Stop once this many items were collected (the array holds at most this many). */
  maxItems?: number;
  /** Stop after this many pages (at most the gateway's `maxPages`). */
  maxPages?: number;
  /** Byte budget of all pages read, decoded (at most the gateway's `maxPaginatedBytes`); the programmatic API only. */
  maxBytes?: number;
}

/** What the caller asked of the gateway for one proxied call. */
export interface ProxyControl {
  providerConfigKey: string;
  connectionId: string;
  retries: number;
  paginate: PaginateRequest | undefined;
  /** Undefined: the catalog's `proxy.decompress` decides. */
  decompress: boolean | undefined;
}

const one = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value.join(', ') : value)?.trim() || undefined;

/*
 * The checkers take the header's value, read at each call site by a literal name: one read by a
 * name that changes from call to call (`headers[name]`) is a generic, megamorphic load.
 */
function integer(header: string | string[] | undefined, name: string, min: number, max: number): number | undefined {
  const raw = one(header);
  if (raw === undefined) return undefined;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    fail('invalid_request', `Header ${name} must be an integer from ${min} to ${max}.`, { header: name });
  }
  return value;
}

function boolean(header: string | string[] | undefined, name: string): boolean | undefined {
  const raw = one(header)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false')
    fail('invalid_request', `Header ${name} must be true or false.`, { header: name });
  return raw === 'true';
}

/** Reads and checks the control headers; 400 naming the header that is missing or wrong. */
export function readControl(headers: IncomingHttpHeaders, maxPages: number): ProxyControl {
  const providerConfigKey = one(headers['provider-config-key']);
  if (!providerConfigKey) {
    fail('missing_provider_config_key', 'Header Provider-Config-Key is required: the unique key of the integration.', {
      header: 'Provider-Config-Key',
    });
  }
  const connectionId = one(headers['connection-id']);
  if (!connectionId) {
    fail(
      'missing_connection_id',
      'Header Connection-Id is required: the id of the connection whose credentials are used.',
      { header: 'Connection-Id' },
    );
  }
  const paginating = boolean(headers.paginate, 'paginate') === true;
  const maxItems = integer(headers['paginate-max-items'], 'paginate-max-items', 1, 1_000_000);
  const pages = integer(headers['paginate-max-pages'], 'paginate-max-pages', 1, maxPages);
  if (!paginating && (maxItems !== undefined || pages !== undefined)) {
    fail('invalid_request', 'Headers Paginate-Max-Items and Paginate-Max-Pages need "Paginate: true".', {
      header: 'Paginate',
    });
  }
  return {
    providerConfigKey,
    connectionId,
    retries: integer(headers.retries, 'retries', 0, maxRetries) ?? 0,
    paginate: paginating
      ? { ...(maxItems !== undefined ? { maxItems } : {}), ...(pages !== undefined ? { maxPages: pages } : {}) }
      : undefined,
    decompress: boolean(headers.decompress, 'decompress'),
  };
}
