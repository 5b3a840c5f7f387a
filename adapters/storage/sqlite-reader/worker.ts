import { parentPort, workerData } from 'node:worker_threads';
// The light door: a worker thread loads the page logic, not the whole storage feature.
import { collectPage, type PageRequest } from '../../../lib/storage/page-reader.js';
import { deserialize } from '../deserialize.js';
import { openReadConnection } from './driver.js';

/** What the gateway's thread sends: one page to read, and when the answer stops being wanted. */
export interface ReadMessage {
  id: number;
  /** `Date.now()` past which the page is not read (the caller has given up). */
  deadline: number;
  request: PageRequest;
}

export type ReplyMessage =
  | { ready: true }
  | { id: number; page: { json: string; count: number; next: { order: number; id: string } | null } }
  | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('the SQLite page reader runs in a worker thread');
const db = openReadConnection((workerData as { path: string }).path);

/** Keyv's stored text is `{"value":…,"expires":…}`; an entry past its expiry is not there. */
const valueOf = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  const entry = deserialize<{ value?: unknown; expires?: number | null }>(text);
  return typeof entry.expires === 'number' && entry.expires <= Date.now() ? undefined : entry.value;
};

async function read(message: ReadMessage): Promise<ReplyMessage> {
  const { id, deadline, request } = message;
  if (Date.now() > deadline) return { id, error: 'deadline passed before the read began' };
  db.begin();
  try {
    const page = await collectPage(
      {
        positions: (list, limit, after, reverse) => db.positions(request.namespace, list, limit, after, reverse),
        values: (keys) => db.values(request.namespace, keys).map(valueOf),
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
port.on('message', (message: ReadMessage) => {
  queue = queue.then(async () => port.postMessage(await read(message)));
});
port.postMessage({ ready: true } satisfies ReplyMessage);
