import { fail, type ErrorCode } from '../errors.js';
import { MAX_ID_LENGTH } from './input.js';
import { MAX_IDS, MAX_PAGE_LIMIT, type RecordFilter } from './store.js';
import { parseTimestamp } from './timestamp.js';

/** GET /records query, validated (spec 4.3). */
export interface RecordsQuery {
  model: string;
  variant?: string;
  cursor?: string;
  limit?: number;
  filter?: RecordFilter[];
  modifiedAfter?: Date;
  /** The deprecated `delta` was used (answered with a Deprecation header). */
  usedDelta: boolean;
  ids?: string[];
}

type RawQuery = Record<string, string | string[] | undefined>;

const known = new Set(['model', 'variant', 'cursor', 'limit', 'filter', 'modified_after', 'delta', 'ids', 'ids[]']);
const filters: readonly string[] = ['added', 'updated', 'deleted'] satisfies RecordFilter[];
const MAX_NAME = 255;

const bad = (code: ErrorCode, field: string, message: string): never => fail(code, `${field}: ${message}`, { field });

const all = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** A parameter that takes one value: given twice it is ambiguous, so refused. */
function single(query: RawQuery, field: string, code: ErrorCode): string | undefined {
  const values = all(query[field]);
  if (values.length > 1) bad(code, field, 'given more than once.');
  return values[0];
}

function name(query: RawQuery, field: 'model' | 'variant', code: ErrorCode): string | undefined {
  const value = single(query, field, code);
  if (value === undefined) return undefined;
  if (value.trim() === '' || value.length > MAX_NAME) bad(code, field, `must be 1 to ${MAX_NAME} characters.`);
  return value;
}

function timestamp(value: string | undefined, field: 'modified_after' | 'delta', code: ErrorCode): Date | undefined {
  if (value === undefined) return undefined;
  const ms = parseTimestamp(value);
  if (ms === undefined) bad(code, field, 'not an ISO 8601 date-time, e.g. 2026-01-05T10:11:12.345+00:00.');
  return new Date(ms as number);
}

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return bad('invalid_ids', 'ids', 'not a valid percent-encoded value.');
  }
};

/** The ids of `ids=` and `ids[]=` in the raw query string, split on literal commas, each decoded. */
function idList(rawQuery: string): string[] {
  const ids: string[] = [];
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const key = decode(eq === -1 ? pair : pair.slice(0, eq));
    if (key !== 'ids' && key !== 'ids[]') continue;
    for (const part of (eq === -1 ? '' : pair.slice(eq + 1)).split(',')) ids.push(decode(part));
  }
  return ids;
}

/** `query` as Koa parsed it; `rawQuery` the query string as sent (for `ids`). */
export function parseRecordsQuery(query: RawQuery, rawQuery = ''): RecordsQuery {
  for (const key of Object.keys(query)) {
    if (!known.has(key))
      bad(
        'unknown_parameter',
        key,
        `unknown parameter; accepted: ${[...known].filter((k) => k !== 'ids[]').join(', ')}.`,
      );
  }
  const model = name(query, 'model', 'invalid_model');
  if (model === undefined) fail('missing_model', 'model: required (the data model to fetch).', { field: 'model' });
  const out: RecordsQuery = { model: model as string, usedDelta: false };

  const variant = name(query, 'variant', 'invalid_variant');
  if (variant !== undefined) out.variant = variant;

  const cursor = single(query, 'cursor', 'invalid_cursor');
  if (cursor !== undefined) {
    if (cursor.trim() === '') bad('invalid_cursor', 'cursor', 'empty.');
    out.cursor = cursor;
  }

  const limit = single(query, 'limit', 'invalid_limit');
  if (limit !== undefined) {
    const n = /^\d{1,7}$/.test(limit.trim()) ? Number(limit) : NaN;
    if (!(n >= 1 && n <= MAX_PAGE_LIMIT))
      bad('invalid_limit', 'limit', `must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`);
    out.limit = n;
  }

  const filterValues = all(query.filter);
  if (filterValues.length > 0) {
    // `added,updated` (or the parameter repeated) means the union.
    const wanted = filterValues.flatMap((v) => v.split(',')).map((v) => v.trim().toLowerCase());
    const unknown = wanted.find((v) => !filters.includes(v));
    if (unknown !== undefined)
      bad(
        'invalid_filter',
        'filter',
        `"${unknown}" is not one of added, updated, deleted (comma-separated for several).`,
      );
    out.filter = [...new Set(wanted)] as RecordFilter[];
  }

  const modifiedAfter = timestamp(
    single(query, 'modified_after', 'invalid_modified_after'),
    'modified_after',
    'invalid_modified_after',
  );
  const delta = timestamp(single(query, 'delta', 'invalid_delta'), 'delta', 'invalid_delta');
  if (modifiedAfter && delta)
    bad('invalid_delta', 'delta', 'deprecated alias of modified_after; send only modified_after.');
  const after = modifiedAfter ?? delta;
  if (after) out.modifiedAfter = after;
  out.usedDelta = delta !== undefined;

  // `ids=a,b`, repeated (`ids=a&ids=b`, `ids[]=a&ids[]=b`), or both. A comma sent as such
  // separates ids; an id holding a comma sends it encoded (`%2C`), so the raw query decides.
  const ids = idList(rawQuery);
  if (ids.length > MAX_IDS) bad('too_many_ids', 'ids', `at most ${MAX_IDS} ids per request (${ids.length} given).`);
  if (ids.some((id) => id === '' || id.length > MAX_ID_LENGTH))
    bad('invalid_ids', 'ids', `every id must be 1 to ${MAX_ID_LENGTH} characters.`);
  if (ids.length > 0) out.ids = ids;
  return out;
}
