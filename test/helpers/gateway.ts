import './script-processes.js';
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { createMemoryStorage } from '../../adapters/storage/index.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../lib/gateway.js';
import { createLogger } from '../../lib/http/logger.js';
import type { Storage } from '../../lib/storage/index.js';
import { listen } from './http.js';

export const devKey = 'sk_test_dev_0123456789abcdef';
export const prodKey = 'sk_test_prod_0123456789abcdef';
export const testEncryptionKey = randomBytes(32).toString('base64');

export interface TestGateway {
  gateway: Gateway;
  url: string;
  storage: Storage;
  /** Calls the gateway with the dev secret key unless `key` says otherwise (null: no header). */
  call(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string>; key?: string | null },
  ): Promise<{ status: number; headers: Headers; json: any; text: string }>;
}

/** A gateway on a real HTTP server at 127.0.0.1:0, closed when the test ends. */
export async function startGateway(t: Test, overrides: Partial<GatewayOptions> = {}): Promise<TestGateway> {
  const storage = overrides.storage ?? createMemoryStorage();
  const lines: string[] = [];
  const gateway = await createGateway({
    environments: [
      { name: 'dev', secretKey: devKey },
      { name: 'prod', secretKey: prodKey },
    ],
    storage,
    encryptionKeys: testEncryptionKey,
    baseUrl: 'http://127.0.0.1:0',
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    ...overrides,
  });
  const running = await listen(gateway.callback());
  t.teardown(async () => {
    await running.close();
    await gateway.close();
    if (!overrides.storage) await storage.close();
  });
  return {
    gateway,
    url: running.url,
    storage,
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? devKey : init.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(running.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, json, text };
    },
  };
}
