import { accountExternalMemoryInHeapLimit } from './external-memory.js';
import { steadyHeapGrowth } from './heap-growth.js';
import { keepTickShape } from './tick-shape.js';

export { keepTickShape } from './tick-shape.js';
export { settleHttpShapes } from './http-shapes.js';
export { steadyHeapGrowth, heapGrowingPercent } from './heap-growth.js';
export { accountExternalMemoryInHeapLimit, takesExternalMemoryFlag } from './external-memory.js';
export { namesV8Flag } from './v8-flag.js';

/**
 * What a long-running process that serves the gateway should set once at start: nextTick kept
 * fast after idle spells (`keepTickShape`), and V8's heap set so that streamed bodies do not drive
 * it from one full collection to the next: its growth fixed (`steadyHeapGrowth`) and, on the V8s
 * that need asking (Node 24 to 26), the bodies' buffers counted within the heap's limit
 * (`accountExternalMemoryInHeapLimit`). `heapGrowingPercent: 0` leaves V8 its own heuristics for
 * both. The standalone server calls it; an application that embeds the gateway in a process of
 * its own may.
 */
export function tuneServerProcess(options: { heapGrowingPercent?: number } = {}): void {
  keepTickShape();
  if (options.heapGrowingPercent === 0) return;
  steadyHeapGrowth(options.heapGrowingPercent);
  accountExternalMemoryInHeapLimit();
}
