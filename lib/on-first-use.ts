import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS library loaded on its first use, once, instead of when the module naming it is
 * imported: for a library only some configurations use (a back end's driver, the metrics
 * registry). A process that never uses it neither loads nor keeps it: the standalone server on
 * SQLite starts about 0.2 s sooner and holds 6 MB less heap (26.4 → 20.4 MB at rest) without
 * BullMQ, ioredis, pg and prom-client (bench/README.md, session 14), and 3.2 MB less again
 * without node-redis and yaml (session 22). For a CommonJS package, `require` gives the very
 * module an `import` of it gives; for a package with both builds (@keyv/redis), the CommonJS one.
 */
export function onFirstUse<T>(name: string): () => T {
  let library: T | undefined;
  return () => (library ??= require(name) as T);
}
