import type { Readable, Writable } from 'node:stream';

/**
 * Copies `source` into `destination` and ends it when `source` ends, with backpressure: a
 * write the destination cannot take yet pauses the source until `drain`. Two listeners on the
 * source, where `pipe` adds seven across both streams and removes them again: on the proxy
 * path this runs for every call, both ways. Errors and early closes are the caller's to watch.
 */
export function copy(source: Readable, destination: Writable): void {
  const resume = () => source.resume();
  source.on('data', (chunk: Buffer) => {
    if (destination.write(chunk)) return;
    source.pause();
    destination.once('drain', resume);
  });
  source.on('end', () => destination.end());
}
