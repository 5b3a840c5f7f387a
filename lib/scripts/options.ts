import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMinimumFrequencyMs, parseFrequency } from './define/frequency.js';
import type { ScriptModule } from './registry/registry.js';
import type { WorkQueue } from '../queue/index.js';
import type { ScriptJob } from './schedule/jobs.js';

/** `GatewayOptions.scripts`: every field has a default. */
export interface ScriptsOptions {
  /** Compiled, self-contained script modules (`portico compile` bundles), each enabled for the integrations it names. */
  modules?: ScriptModule[];
  /** A directory laid out `<integration>/[syncs|actions|on-events/]<name>.js` (standalone: `SERVICE_SCRIPTS_DIR`). */
  dir?: string;
  /** Script processes running scripts at once (one run each). Default: CPUs − 1, at least 2. */
  workers?: number;
  /** Heap limit of each script process (MB). Default 256. */
  heapMb?: number;
  /** Linux nice value (0-19) of script processes, so spinning scripts yield the CPU to the proxy. Default 10. */
  nice?: number;
  /** A sync run is stopped after this long. Default 1 hour. */
  syncTimeoutMs?: number;
  /** An action (or on-event script) is stopped after this long. Default 5 minutes. */
  actionTimeoutMs?: number;
  /** Smallest sync frequency accepted, as a frequency (`every 1 minute`, the default) or in ms. */
  minimumFrequency?: string | number;
  /** Where deployed bundles are written for script processes to import (they may read this folder: keep nothing else in it). Default `<tmp>/portico-scripts-<uid>`. */
  bundleDir?: string;
  /**
   * A claimed run (sync, async action, …) is hidden from other instances this long without a
   * heartbeat: after a crash mid-run it runs again this long later. Default 30 s.
   */
  leaseMs?: number;
  /** Where runs wait and schedules fire. Default: the storage's work queue (`storage.queue('scripts')`). */
  queue?: WorkQueue<ScriptJob>;
}

export interface ResolvedScriptsOptions {
  modules: ScriptModule[];
  dir: string | undefined;
  workers: number;
  heapMb: number;
  nice: number;
  syncTimeoutMs: number;
  actionTimeoutMs: number;
  minimumFrequencyMs: number;
  bundleDir: string;
  leaseMs: number | undefined;
  queue: WorkQueue<ScriptJob> | undefined;
}

/** Spec 7 and 8: an action's output may not exceed 2 MB (since 1 Oct 2025). */
export const actionOutputLimitBytes = 2 * 1024 * 1024;

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`scripts.${name} must be a positive number`);
  return value;
};

function niceValue(value: number | undefined): number {
  if (value === undefined) return 10;
  if (!Number.isInteger(value) || value < 0 || value > 19)
    throw new Error('scripts.nice must be an integer from 0 to 19');
  return value;
}

export function resolveScriptsOptions(options: ScriptsOptions = {}): ResolvedScriptsOptions {
  let minimumFrequencyMs = defaultMinimumFrequencyMs;
  if (typeof options.minimumFrequency === 'number')
    minimumFrequencyMs = positive('minimumFrequency', options.minimumFrequency, 0);
  else if (options.minimumFrequency !== undefined) {
    const parsed = parseFrequency(options.minimumFrequency, 1_000);
    if (!parsed.ok) throw new Error(`scripts.minimumFrequency: ${parsed.reason}`);
    minimumFrequencyMs = parsed.ms;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return {
    modules: options.modules ?? [],
    dir: options.dir,
    workers: Math.floor(positive('workers', options.workers, Math.max(2, availableParallelism() - 1))),
    heapMb: positive('heapMb', options.heapMb, 256),
    nice: niceValue(options.nice),
    syncTimeoutMs: positive('syncTimeoutMs', options.syncTimeoutMs, 3_600_000),
    actionTimeoutMs: positive('actionTimeoutMs', options.actionTimeoutMs, 300_000),
    minimumFrequencyMs,
    bundleDir: options.bundleDir ?? join(tmpdir(), `portico-scripts-${uid}`),
    leaseMs: options.leaseMs === undefined ? undefined : positive('leaseMs', options.leaseMs, 0),
    queue: options.queue,
  };
}
