// The script process's entry: runs one task at a time for the pool, turning every effect the
// script asks for into a message over the IPC channel. This process holds no key, no store
// and no credential: it gets only what each service call answers for the run it is doing.
import type { FromWorker, SerializedError, ToWorker } from '../protocol.js';
import { serializeError } from '../protocol.js';
import { execute, loadScript } from './execute.js';

const send = process.send?.bind(process);
if (!send) throw new Error('the script runtime must be started with an IPC channel');

let nextCallId = 1;
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
const post = (message: FromWorker) => {
  send(message);
};

function revive(error: SerializedError): Error {
  return Object.assign(new Error(error.message), { name: error.name, ...(error.code ? { code: error.code } : {}) });
}

const call = (method: string, args: unknown[]) =>
  new Promise<unknown>((resolve, reject) => {
    const id = nextCallId++;
    pending.set(id, { resolve, reject });
    post({ type: 'call', id, method, args });
  });

// An error nothing caught (a stray timer, an unawaited promise) ends the run with its message;
// the process then exits, and the pool starts a fresh one for the next run.
const fatal = (error: unknown) => {
  send(
    { type: 'done', ok: false, error: { ...serializeError(error), code: 'script_crashed' } } satisfies FromWorker,
    () => process.exit(70),
  );
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
// The gateway going away closes the channel: nothing is left to work for.
process.on('disconnect', () => process.exit(0));

process.on('message', (message: ToWorker) => {
  if (message.type === 'reply') {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (!waiter) return;
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(revive(message.error));
    return;
  }
  void (async () => {
    try {
      const script = await loadScript(message.file);
      post({ type: 'started' });
      const value = await execute(script, message.task, call, (level, text) =>
        post({ type: 'log', level, message: text }),
      );
      post({ type: 'done', ok: true, value });
    } catch (error) {
      post({ type: 'done', ok: false, error: serializeError(error) });
    }
  })();
});
