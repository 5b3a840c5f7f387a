import type { LogLevel } from '../../http/logger.js';

/** A schedule fired for one sync of one integration: it fans out to the connections. */
export interface TickJob {
  type: 'tick';
  environment: string;
  providerConfigKey: string;
  sync: string;
}

/** One sync run for one connection. */
export interface SyncJob {
  type: 'sync';
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  sync: string;
  mode: 'full' | 'incremental';
  trigger: 'schedule' | 'api' | 'connection';
  logLevel?: LogLevel;
  /** The schedule slot (epoch ms) a scheduled run belongs to. */
  scheduledAt?: number;
}

/** An asynchronous action call (its record already says `pending`). */
export interface ActionJob {
  type: 'action';
  environment: string;
  id: string;
  providerConfigKey: string;
  connectionId: string;
  action: string;
  input: unknown;
  logLevel?: LogLevel;
}

/** A script run on a connection event (post-connection scripts). */
export interface EventJob {
  type: 'on-event';
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  script: string;
}

export type ScriptJob = TickJob | SyncJob | ActionJob | EventJob;

/** What the scripts' APIs need of the work queue (`storage.queue('scripts')`). */
export interface ScriptQueue {
  /** Queues a job; a second job with the same `dedupeId` within the dedupe window is dropped. */
  enqueue(job: ScriptJob, dedupeId?: string): Promise<void>;
  /** When the schedule next fires (epoch ms), if known. */
  nextRun(id: string): Promise<number | null>;
}
