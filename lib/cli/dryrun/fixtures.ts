import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RecordedExchange {
  request: { method: string; endpoint: string; params?: unknown; headers?: Record<string, string>; data?: unknown };
  response: { status: number; headers: Record<string, string>; data: unknown };
}

// Provider answers are data, but headers can carry session material: those never reach a file.
const secretHeader = /authorization|cookie|token|secret|api[-_]?key|signature/i;
const safeHeaders = (headers: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !secretHeader.test(name)));

/**
 * `--save-responses`: each provider answer of the run, one JSON file per distinct request,
 * named `<METHOD>_<path>_<hash>.json` so the same request overwrites its own file.
 */
export function createFixtureRecorder(dir: string) {
  const written = new Set<string>();
  return {
    dir,
    save(exchange: RecordedExchange): string {
      const { method, endpoint, params, data } = exchange.request;
      const hash = createHash('sha256')
        .update(JSON.stringify([method, endpoint, params ?? null, data ?? null]))
        .digest('hex')
        .slice(0, 10);
      const slug =
        endpoint
          .replace(/[^A-Za-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 80) || 'root';
      const file = join(dir, `${method}_${slug}_${hash}.json`);
      mkdirSync(dir, { recursive: true });
      const content = {
        request: { ...exchange.request, headers: safeHeaders(exchange.request.headers) },
        response: { ...exchange.response, headers: safeHeaders(exchange.response.headers) },
      };
      writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
      written.add(file);
      return file;
    },
    files: () => [...written],
  };
}

export type FixtureRecorder = ReturnType<typeof createFixtureRecorder>;
