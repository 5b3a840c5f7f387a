import { isLogLevel } from '../../http/logger.js';
import type { TaskHandlers } from './pool.js';
import type { FromWorker, SerializedError, ToWorker } from './protocol.js';
import { serializeError } from './protocol.js';

const maxLogMessage = 64 * 1024;

export interface TaskChannelEvents {
  /** The module loaded: the run's own time limit starts. Reported once, however often the script says so. */
  started(): void;
  done(result: { ok: true; value: unknown } | { ok: false; error: SerializedError }): void;
}

/**
 * The gateway's side of one task's messages. The script owns its process and may send anything
 * over the channel, so nothing is trusted: unknown shapes are dropped, logs are cut to size,
 * calls beyond `maxCalls` in flight are refused, and every call is answered by the run's own
 * handlers, which know the run's connection and environment (the script never names them).
 */
export function createTaskChannel(
  handlers: TaskHandlers,
  send: (message: ToWorker) => void,
  events: TaskChannelEvents,
  maxCalls: number,
) {
  let started = false;
  let inFlight = 0;
  const reply = (id: number, outcome: Promise<unknown>) => {
    inFlight++;
    outcome
      .then(
        (value) => send({ type: 'reply', id, ok: true, value }),
        (error: unknown) => send({ type: 'reply', id, ok: false, error: publicError(error) }),
      )
      .finally(() => {
        inFlight--;
      });
  };
  return (raw: unknown) => {
    if (raw === null || typeof raw !== 'object') return;
    const message = raw as FromWorker;
    if (message.type === 'started') {
      if (!started) events.started();
      started = true;
    } else if (message.type === 'log') {
      if (isLogLevel(message.level)) handlers.onLog(message.level, String(message.message).slice(0, maxLogMessage));
    } else if (message.type === 'call') {
      if (!Number.isSafeInteger(message.id) || typeof message.method !== 'string' || !Array.isArray(message.args))
        return;
      reply(
        message.id,
        inFlight >= maxCalls
          ? Promise.reject(
              new Error(`${message.method}: more than ${maxCalls} service calls in flight; await some first`),
            )
          : Promise.resolve().then(() => handlers.onCall(message.method, message.args)),
      );
    } else if (message.type === 'done') {
      if (message.ok === true) events.done({ ok: true, value: message.value });
      else events.done({ ok: false, error: cleanError(message.error) });
    }
  };
}

/** A service call's failure as the script sees it: name, message and code, no gateway stack. */
function publicError(error: unknown): SerializedError {
  const { stack: _stack, ...rest } = serializeError(error);
  return rest;
}

/** What the script reported about its own failure, reduced to strings of bounded size. */
function cleanError(raw: unknown): SerializedError {
  const error = (raw ?? {}) as Partial<SerializedError>;
  const text = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : undefined);
  const code = text(error.code, 100);
  const field = text(error.field, 1000);
  return {
    name: text(error.name, 100) ?? 'Error',
    message: text(error.message, 8 * 1024) ?? 'the script failed',
    ...(code !== undefined ? { code } : {}),
    ...(field !== undefined ? { field } : {}),
    ...(error.payload !== undefined ? { payload: error.payload } : {}),
    ...(typeof error.stack === 'string' ? { stack: error.stack.slice(0, 16 * 1024) } : {}),
  };
}
