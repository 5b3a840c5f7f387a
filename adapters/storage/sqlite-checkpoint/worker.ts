import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteDatabase } from '../sqlite-driver.js';
import type { CheckpointReport, CheckpointWorkerData } from './messages.js';

/**
 * The checkpointer's thread: copies the WAL's frames into the database file from a connection of
 * its own, so the gateway's thread never does. Passive passes never wait for anyone. Once the
 * WAL holds `restartFrames`, a restart pass (its frames nearly all copied by then) takes the
 * write lock for a moment, so the next write starts the WAL from its beginning again and the file
 * stays bounded however steady the writes are; the gateway's write of that moment waits for it
 * as for any other connection's (sqlite-commit.ts). Once writes stop, a truncating pass empties
 * the WAL file, so a store at rest is its database file alone.
 */
const { path, driver, everyMs, restartFrames } = workerData as CheckpointWorkerData;
const port = parentPort;
if (!port) throw new Error('the checkpointer runs in a worker thread');

const db = openSqliteDatabase(path, { driver });
// A restart holds the gateway's writes off while it waits for readers: never long.
db.exec('PRAGMA busy_timeout = 10');
type Row = { busy: number; log: number; checkpointed: number };
const passive = db.prepare<[], Row>('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare<[], Row>('PRAGMA wal_checkpoint(RESTART)');
const truncate = db.prepare<[], Row>('PRAGMA wal_checkpoint(TRUNCATE)');

/** Frames a restart may still have to copy itself: the writes of a moment, not a reader's backlog. */
const restartSlack = Math.max(1, Math.floor(restartFrames / 4));
/** Longest pause after refused restarts: a reader may hold its snapshot a long while. */
const longestBackoffMs = 2_000;

let lastFrames = -1;
let refused = 0;
const pass = () => {
  let row = passive.get() as Row;
  // What was written during a pass is copied by the next, shorter one; a few catch up with the writes.
  for (let i = 0; i < 3 && row.checkpointed < row.log; i++) row = passive.get() as Row;
  let busy = false;
  // A large remainder means a reader holds an old snapshot: a restart would only hold the
  // gateway's writes while it waits for that reader, so it is left until the reader is done.
  if (row.log >= restartFrames && row.log - row.checkpointed <= restartSlack) {
    row = restart.get() as Row;
    busy = row.busy === 1;
  }
  const idle = row.log === lastFrames;
  // Writes have stopped (no frame since the last pass) and every frame is in the database: the
  // WAL file goes back to nothing, so a store at rest takes its database's size on disk. Refused
  // (a reader or a write under way), it is tried at the next quiet pass.
  if (idle && !busy && row.log > 0 && row.checkpointed === row.log) {
    const truncated = truncate.get() as Row;
    if (truncated.busy === 0) row = truncated;
  }
  refused = busy ? refused + 1 : 0;
  const report: CheckpointReport = { frames: row.log, checkpointed: row.checkpointed, busy };
  port.postMessage(report);
  lastFrames = row.log;
  // A refused restart is tried again soon (a gap between the gateway's writes will come), then
  // less and less often, so a reader that stays does not have the gateway's writes held again and again.
  const next = busy ? Math.min(longestBackoffMs, (everyMs / 4) * 2 ** (refused - 1)) : idle ? everyMs * 4 : everyMs;
  setTimeout(pass, next);
};

port.postMessage({ ready: true } satisfies CheckpointReport);
setTimeout(pass, everyMs);
