import { createHook } from 'node:async_hooks';

/** The tick object held for the life of the process (see `keepTickShape`). */
let held: object | undefined;

const noop = () => {};

/**
 * Keeps the shape of Node's tick objects alive, so that `process.nextTick` stays fast in a
 * process that has been idle.
 *
 * `process.nextTick` builds each tick object with one object literal whose first keys are
 * computed (`{ [asyncId]: …, [triggerAsyncId]: …, callback, args }`), and Node's stream and
 * socket code calls it dozens of times a proxied request. V8 compiles those calls against the
 * maps the literal passes through, and refers to them weakly. When the process goes quiet, V8's
 * memory reducer collects with no tick object alive, and those maps go with it. The next tick
 * objects get new maps; V8 then marks the literal's feedback megamorphic, which it never undoes,
 * and every tick object from then on is built by a runtime call. Measured on Node 20
 * (test/standalone/tick-shape.test.ts): a nextTick costs 3 to 4.6 times as much after an idle
 * collection; and in `npm run bench`, standalone servers left idle between their turns ran
 * 1.3–1.45 × the CPU a proxied call of those that had not been (bench/README.md, session 23).
 *
 * Holding one tick object keeps its maps, and with them the feedback as compiled. The object is
 * caught with an async hook enabled around one `nextTick` call and disabled at once: no hook is
 * left installed. Idempotent; the process owner calls it (the standalone server does at start;
 * an application embedding the gateway may).
 */
export function keepTickShape(): void {
  if (held) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && held === undefined) held = resource as object;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
}
