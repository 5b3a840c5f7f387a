import { requestLine, type RequestFields } from './request-line.js';

/** Request lines that may wait to be formatted: about 14 ms of a busy server's traffic at 9,000 calls a second. */
const requestLineBatch = 128;

export interface RequestLines {
  /** Notes one request's line, stamped now; it is written out at the latest with the `batch`-th. */
  add(fields: RequestFields): void;
  /** Formats every line waiting, in the order they were added, into the destination. */
  flush(): void;
  /** Lines noted and not yet formatted. */
  readonly waiting: number;
}

/**
 * Request lines formatted in batches, for a destination that writes out in chunks anyway (a file
 * or stdout through lib/http/log-buffer.ts): a request notes its fields and the time it ended,
 * and the lines are turned into text `batch` at a time, or sooner when the logger writes another
 * line (so the file keeps the order they were logged in) or its buffer writes out. A line costs
 * under a microsecond to build in a tight loop and several times that between two proxied calls,
 * its code and data out of the CPU's caches; in batches the logged gateway used about 2 µs a call
 * less at 1 KiB, interleaved against formatting each line at once
 * (bench/README.md, session 25). Each waiting line holds its fields object (strings and numbers
 * already built for the line), never the request.
 */
export function createRequestLines(write: (line: string) => void, batch: number = requestLineBatch): RequestLines {
  const fields: (RequestFields | undefined)[] = new Array<RequestFields | undefined>(batch).fill(undefined);
  const times = new Float64Array(batch);
  let count = 0;
  const flush = () => {
    const n = count;
    // Taken first: a line the destination writes out on the way cannot format these twice.
    count = 0;
    for (let i = 0; i < n; i++) {
      write(requestLine(fields[i] as RequestFields, times[i] as number));
      fields[i] = undefined;
    }
  };
  return {
    add(f) {
      fields[count] = f;
      times[count] = Date.now();
      if (++count === batch) flush();
    },
    flush,
    get waiting() {
      return count;
    },
  };
}
