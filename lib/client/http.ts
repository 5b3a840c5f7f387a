import { envelopeOf, PorticoError } from './errors.js';

export interface PorticoClientOptions {
  /** Where the gateway is mounted, e.g. `https://api.example.com/portico`. */
  baseUrl: string;
  /** The environment's secret key. */
  secretKey: string;
  /** Defaults to the global `fetch` (Node 20+). */
  fetch?: typeof fetch;
}

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue | readonly QueryValue[]>;

export interface SendInit {
  query?: Query | undefined;
  headers?: Record<string, string> | undefined;
  body?: BodyInit | undefined;
}

/** The shared transport of every client module: the base URL, the secret key, error mapping. */
export interface Http {
  /** A gateway route answering JSON: the parsed body, or a `PorticoError` carrying the API's code. */
  json<T>(
    method: string,
    path: string,
    init?: { query?: Query; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: T }>;
  /** Any route, the raw response (the proxy); only a missing answer throws. */
  send(method: string, path: string, init?: SendInit): Promise<Response>;
}

export function appendQuery(url: URL, query: Query | undefined): void {
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) url.searchParams.append(name, String(item));
    }
  }
}

/** Reads a body as JSON when it says it is JSON, as text otherwise; undefined when empty. */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  if (/[/+]json\b/i.test(response.headers.get('content-type') ?? '')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** fetch's own message is only "fetch failed": the reason (ECONNREFUSED, a reset socket…) is its cause. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = error.cause instanceof Error ? error.cause : undefined;
  const code = (inner as { code?: unknown } | undefined)?.code;
  return inner ? `${error.message} (${typeof code === 'string' ? `${code}: ` : ''}${inner.message})` : error.message;
}

export function createHttp(options: PorticoClientOptions): Http {
  if (!options.baseUrl) throw new TypeError('createPorticoClient: baseUrl is required');
  if (!options.secretKey) throw new TypeError('createPorticoClient: secretKey is required');
  const base = options.baseUrl.replace(/\/+$/, '');
  const fetchFn = options.fetch ?? globalThis.fetch;

  const send: Http['send'] = async (method, path, init = {}) => {
    const url = new URL(base + path);
    appendQuery(url, init.query);
    try {
      return await fetchFn(url, {
        method,
        headers: { ...init.headers, authorization: `Bearer ${options.secretKey}` },
        ...(init.body !== undefined ? ({ body: init.body, duplex: 'half' } as RequestInit) : {}),
      });
    } catch (cause) {
      throw new PorticoError({
        code: 'network_error',
        status: 0,
        message: `No answer from the gateway at ${base}: ${reasonOf(cause)}`,
        cause,
      });
    }
  };

  return {
    send,
    async json<T>(
      method: string,
      path: string,
      init: { query?: Query; body?: unknown; headers?: Record<string, string> } = {},
    ) {
      const response = await send(method, path, {
        query: init.query,
        headers: {
          accept: 'application/json',
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const body = await readBody(response);
      if (!response.ok) {
        const envelope = envelopeOf(body);
        throw new PorticoError(
          envelope
            ? { code: envelope.code, status: response.status, message: envelope.message, details: envelope.details }
            : {
                code: 'server_error',
                status: response.status,
                message: `The gateway answered ${response.status} without an error body.`,
              },
        );
      }
      return { status: response.status, body: body as T };
    },
  };
}
