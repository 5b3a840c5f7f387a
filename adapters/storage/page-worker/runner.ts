import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
// The light door: a worker thread loads the page logic, not the whole storage feature.
import { loadView, type PageRequest, type PageText } from '../../../lib/storage/page-reader.js';
import { viewKey, type LoadMessage, type ReadMessage, type ReplyMessage } from './messages.js';

/**
 * How much nicer than the gateway's thread the page worker runs: a listing gives way to the
 * proxy when the two want the same core. On Linux a thread has a nice value of its own, and
 * `setPriority(0, …)` sets the calling thread's; elsewhere it would set the whole process's, so
 * it is left alone there. 10 nicer, the thread weighs about a tenth of the gateway's thread in
 * the kernel's scheduler: a proxied call is not held up by a page being built, and a page still
 * comes while the core is busy, a few times slower and well within the read's deadline.
 */
export const pageWorkerNiceness = 10;

/** Lowers the calling thread's priority (Linux only; where it cannot, nothing changes). */
function yieldToGateway(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + pageWorkerNiceness));
  } catch {
    // A sandbox that forbids it leaves the thread at the process's priority, as before.
  }
}

export interface PageWorkerOptions {
  /**
   * True: a read begins once the one before has ended (SQLite: each holds the connection's read
   * transaction), and a read whose caller gave up while it queued is skipped. False: reads run
   * side by side (Redis: the client pipelines their commands).
   */
  oneAtATime: boolean;
}

/**
 * The worker's side of the page reader (reader.ts): loads views when asked, reads pages with
 * `read` (over the worker's own source, opened by its module before this runs), and answers each
 * read with its page or its failure's message, never with silence. Says it is ready at once.
 * Runs at a lower priority than the gateway's thread (`pageWorkerNiceness`).
 */
export function runPageWorker(read: (request: PageRequest) => Promise<PageText>, options: PageWorkerOptions): void {
  const port = parentPort;
  if (!port) throw new Error('a page reader runs in a worker thread');
  yieldToGateway();

  const answer = async ({ id, deadline, request }: ReadMessage): Promise<ReplyMessage> => {
    if (Date.now() > deadline) return { id, error: 'deadline passed before the read began' };
    try {
      return { id, page: await read(request) };
    } catch (error) {
      return { id, error: error instanceof Error ? error.message : String(error) };
    }
  };

  let queue = Promise.resolve();
  port.on('message', (message: ReadMessage | LoadMessage) => {
    if ('load' in message) {
      // A view that fails to load is never reported loaded: its pages stay in process.
      loadView(message.load).then(
        () => port.postMessage({ loaded: viewKey(message.load) } satisfies ReplyMessage),
        () => undefined,
      );
      return;
    }
    // A page's buffer is moved to the gateway's thread, not copied (PageText).
    const reply = () =>
      answer(message).then((r) => port.postMessage(r, 'page' in r ? [r.page.json.buffer as ArrayBuffer] : []));
    if (options.oneAtATime) queue = queue.then(reply);
    else void reply();
  });
  port.postMessage({ ready: true } satisfies ReplyMessage);
}
