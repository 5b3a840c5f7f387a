import { parentPort, workerData } from 'node:worker_threads';
// The light door: a worker thread loads the page logic, not the whole storage feature.
import { collectPage, loadView, type PageRequest, type ValueView } from '../../../lib/storage/page-reader.js';
import { storedValue } from '../deserialize.js';
import { openReadConnection } from './driver.js';
import type { SqliteDriver } from '../sqlite-driver.js';

/** What the gateway's thread sends: one page to read, and when the answer stops being wanted. */
export interface ReadMessage {
  id: number;
  /** `Date.now()` past which the page is not read (the caller has given up). */
  deadline: number;
  request: PageRequest;
}

/** Loads a view ahead of the reads that use it (they run in process until it is loaded). */
export interface LoadMessage {
  load: ValueView;
}

export type ReplyMessage =
  | { ready: true }
  | { loaded: string }
  | { id: number; page: { json: string; count: number; next: { order: number; id: string } | null } }
  | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('the SQLite page reader runs in a worker thread');
const { path, driver } = workerData as { path: string; driver: SqliteDriver };
const db = openReadConnection(path, driver);

async function read(message: ReadMessage): Promise<ReplyMessage> {
  const { id, deadline, request } = message;
  if (Date.now() > deadline) return { id, error: 'deadline passed before the read began' };
  db.begin();
  try {
    const page = await collectPage(
      {
        positions: (list, limit, after, reverse) => db.positions(request.namespace, list, limit, after, reverse),
        values: (keys) => db.values(request.namespace, keys).map(storedValue),
      },
      request,
    );
    return { id, page };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  } finally {
    db.end();
  }
}

// One read at a time: each holds the connection's read transaction.
let queue = Promise.resolve();
port.on('message', (message: ReadMessage | LoadMessage) => {
  if ('load' in message) {
    const { module, name } = message.load;
    // A view that fails to load is never reported loaded: its pages stay in process.
    loadView(message.load).then(
      () => port.postMessage({ loaded: `${module}#${name}` } satisfies ReplyMessage),
      () => undefined,
    );
    return;
  }
  queue = queue.then(async () => port.postMessage(await read(message)));
});
port.postMessage({ ready: true } satisfies ReplyMessage);
