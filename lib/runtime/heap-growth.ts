import { setV8FlagUnlessNamed } from './v8-flag.js';

/** V8's old-generation limit after each full collection: four times what survived it (V8's own largest factor). */
export const heapGrowingPercent = 300;

/**
 * Fixes how far V8 lets the old generation grow past what survived a full collection before it
 * starts the next one: to `percent` (`heapGrowingPercent`, four times the survivors, by default),
 * where V8 would otherwise pick a factor of its own at each collection, from 1.1 to 4.
 *
 * Why a proxy process needs it: V8 counts the external memory allocated since the last full
 * collection against the old generation's limit, and every body chunk a proxy reads from a
 * socket is external memory (up to 64 KiB a read). At 1 MiB a call that is hundreds of megabytes
 * a second, most of it garbage by the next scavenge. When a full collection runs while bodies
 * stream, the old generation has allocated almost nothing, so V8 picks its smallest factor and
 * the next limit sits a few megabytes above the survivors; the buffers in flight cross it within
 * a few calls, and the process goes from one full collection to the next. Measured on Node 20
 * (bench/README.md, session 24): standalone servers started, left idle, then sent 1 MiB bodies
 * ran a full collection every 100–130 ms and used 2–2.8 times the CPU a call of a bare
 * forwarder; with this setting, one every few seconds, and about the forwarder's CPU a call.
 * Node 24 showed the same with a factor of 3 still too small, hence 4. The cost is memory: the
 * gateway's heap (about 20 MB live) may reach about 80 MB before a full collection.
 *
 * Set at run time with `v8.setFlagsFromString`; V8 reads it at each collection. A
 * `--heap-growing-percent` on the command line is the operator's choice and is left alone; a
 * `percent` of 0 leaves V8 its own. The last call wins; the process owner calls it (the
 * standalone server does at start, with SERVICE_HEAP_GROWING_PERCENT).
 */
export function steadyHeapGrowth(percent: number = heapGrowingPercent): void {
  if (percent > 0) setV8FlagUnlessNamed('heap-growing-percent', Math.round(percent));
}
