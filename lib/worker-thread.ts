import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker module beside `moduleUrl` (its starter's own `import.meta.url`): `.ts` under the TypeScript loader (tests, benches), `.js` built. */
export const siblingWorker = (moduleUrl: string, name: string) =>
  new URL(`./${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.js'}`, moduleUrl);

/**
 * Starts a worker thread on `url`. Built code (`.js`) starts as is. Source run under the
 * repository's TypeScript loader (tests, benches: `node --import tsx`) needs that loader inside
 * the thread too, and on Node 20 a thread does not inherit the main thread's module hooks, so a
 * `.ts` entry starts through tsx's own import in the thread. tsx is a development dependency:
 * the `.ts` branch is never taken by the published package.
 */
export function startWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const entry = JSON.stringify(url.href);
  const boot = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${entry}, ${entry}))`;
  return new Worker(boot, { ...options, eval: true });
}
