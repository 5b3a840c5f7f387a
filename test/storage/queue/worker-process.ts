// A queue worker as a separate process, for the contract's kill -9 test: it opens the backend
// named in argv (for SQLite, the third argument is the driver), enqueues one job, prints
// `started <id> <attempt>` when its handler begins and then never finishes, waiting to be killed.
import {
  createPostgresStorage,
  createRedisStorage,
  createSqliteStorage,
  type SqliteDriver,
} from '../../../adapters/storage/index.js';

const [kind, where, prefix, jobId, visibility] = process.argv.slice(2);
const storage =
  kind === 'sqlite'
    ? createSqliteStorage({ path: where as string, driver: (prefix || 'auto') as SqliteDriver | 'auto' })
    : kind === 'postgres'
      ? createPostgresStorage({ url: where as string })
      : createRedisStorage({ url: where as string, prefix: prefix as string });
const queue = storage.queue<{ label: string }>('contract', { visibilityTimeoutMs: Number(visibility) });
await queue.start(
  async (job) => {
    process.stdout.write(`started ${job.id} ${job.attempt}\n`);
    await new Promise(() => {});
  },
  { concurrency: 1 },
);
// Nothing else keeps a SQLite process alive: it must live until killed.
setInterval(() => {}, 60_000);
await queue.enqueue([{ id: jobId as string, data: { label: 'killed' } }]);
process.stdout.write('enqueued\n');
