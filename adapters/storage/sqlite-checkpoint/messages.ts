import type { SqliteDriver } from '../sqlite-driver.js';

/** What the checkpointer's worker is started with (index.ts). */
export interface CheckpointWorkerData {
  /** The SQLite file (WAL mode) the gateway's own connection writes. */
  path: string;
  driver: SqliteDriver;
  /** Pause between passes while the WAL takes new frames; four times as long while it is idle. */
  everyMs: number;
  /** WAL frames past which a pass also restarts the WAL (waiting out the gateway's write, briefly). */
  restartFrames: number;
}

/**
 * What the worker reports: that its connection is open, then each pass — the WAL's frames, how
 * many of them are in the database file now, and whether the restart it wanted was refused
 * (readers or the gateway's write held on past its wait).
 */
export type CheckpointReport = { ready: true } | { frames: number; checkpointed: number; busy: boolean };
