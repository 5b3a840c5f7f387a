import { steadyHeapGrowth } from './heap-growth.js';
import { keepTickShape } from './tick-shape.js';

export { keepTickShape } from './tick-shape.js';
export { settleHttpShapes } from './http-shapes.js';
export { steadyHeapGrowth, heapGrowingPercent } from './heap-growth.js';

/**
 * What a long-running process that serves the gateway should set once at start: nextTick kept
 * fast after idle spells (`keepTickShape`) and V8's heap growth fixed so that streamed bodies do
 * not drive it from one full collection to the next (`steadyHeapGrowth`; `heapGrowingPercent: 0`
 * leaves V8 its own heuristics). The standalone server calls it; an application that embeds the
 * gateway in a process of its own may.
 */
export function tuneServerProcess(options: { heapGrowingPercent?: number } = {}): void {
  keepTickShape();
  steadyHeapGrowth(options.heapGrowingPercent);
}
