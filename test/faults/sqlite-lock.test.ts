import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createSqliteStorage } from '../../adapters/storage/index.js';
import { usableSqliteDrivers } from '../../adapters/storage/sqlite-driver.js';
import { proxySetup } from '../proxy/helpers.js';
import { lockSqliteFile } from './sqlite-locker.js';

const p99 = (samples: number[]) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))] as number;

// On each driver this Node can use: each reports a held lock its own way (sqlite-busy.ts).
for (const driver of usableSqliteDrivers()) {
  t.test(
    `another process holding the SQLite write lock costs the waiting write, not every request (${driver})`,
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'portico-faults-'));
      const path = join(dir, 'portico.db');
      const storage = createSqliteStorage({ path, driver });
      t.teardown(async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      });
      const setup = await proxySetup(t, { gateway: { storage } });
      const { gw } = setup;

      /** Warm proxy calls back to back for `ms`; their latencies. */
      const proxyCalls = async (ms: number) => {
        const latencies: number[] = [];
        const until = performance.now() + ms;
        while (performance.now() < until) {
          const started = performance.now();
          const res = await setup.proxy('GET', '/items');
          latencies.push(performance.now() - started);
          if (res.status !== 200) throw new Error(`proxy answered ${res.status}`);
        }
        return latencies;
      };
      const before = await proxyCalls(1_000);

      const lock = await lockSqliteFile(path, 3_000, driver);
      t.teardown(() => {
        lock.child.kill();
      });
      // A write that meets the lock, while warm proxy calls go on.
      const write = (async () => {
        const started = performance.now();
        const res = await gw.call('POST', '/connections', {
          body: { provider_config_key: 'fake', connection_id: 'w1', credentials: { type: 'API_KEY', apiKey: 'k' } },
        });
        return { res, ms: performance.now() - started };
      })();
      const during = await proxyCalls(2_000);
      const { res, ms } = await write;
      const p99Before = Math.round(p99(before) * 10) / 10;
      const p99During = Math.round(p99(during) * 10) / 10;
      t.comment(
        `proxy p99 before the lock: ${p99Before} ms (${before.length} calls); during the lock: ${p99During} ms (${during.length} calls)`,
      );
      t.ok(p99During < 250, `warm proxy calls keep their latency during the lock (p99 ${p99During} ms)`);
      t.comment(`the write that met the lock answered ${res.status} in ${Math.round(ms)} ms`);
      t.equal(res.status, 503, 'a write that cannot get the lock in time: 503');
      t.equal(res.json?.error?.code, 'store_unavailable');
      t.ok(Number(res.headers.get('retry-after')) > 0, 'with Retry-After');
      t.ok(ms < 2_800, `answered in ${Math.round(ms)} ms, before the lock is let go`);

      await lock.released;
      const after = await gw.call('POST', '/connections', {
        body: { provider_config_key: 'fake', connection_id: 'w1', credentials: { type: 'API_KEY', apiKey: 'k' } },
      });
      t.equal(after.status, 201, 'once the lock is let go, writes work again');
      t.equal((await setup.proxy('GET', '/items', { headers: { 'connection-id': 'w1' } })).status, 200);
    },
  );

  t.test(`a lock another process holds briefly is waited out, not reported (${driver})`, async (t) => {
    const path = join(t.testdir(), 'portico.db');
    const storage = createSqliteStorage({ path, driver });
    t.teardown(() => storage.close());
    const kv = storage.keyv<string>('ns');
    await kv.set('warm', 'v');
    const lock = await lockSqliteFile(path, 300, driver);
    t.teardown(() => {
      lock.child.kill();
    });
    const started = performance.now();
    await kv.set('a', 'written');
    t.comment(`the write waited ${Math.round(performance.now() - started)} ms for the lock`);
    await lock.released;
    t.equal(await kv.get('a'), 'written', 'the write went through once the lock was let go');
  });
}
