/**
 * Bytes of provider webhook bodies held in memory at once, across every request of this
 * process: a request that would exceed it is turned away (503) instead of growing memory.
 */
export interface ByteBudget {
  /** Takes `bytes` from the budget; false (nothing taken) when they do not fit. */
  tryTake(bytes: number): boolean;
  giveBack(bytes: number): void;
  readonly inFlight: number;
}

export function createByteBudget(totalBytes: number): ByteBudget {
  let inFlight = 0;
  return {
    tryTake(bytes) {
      if (inFlight + bytes > totalBytes) return false;
      inFlight += bytes;
      return true;
    },
    giveBack(bytes) {
      inFlight = Math.max(0, inFlight - bytes);
    },
    get inFlight() {
      return inFlight;
    },
  };
}
