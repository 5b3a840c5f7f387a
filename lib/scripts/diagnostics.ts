import { channel } from 'node:diagnostics_channel';

/**
 * `portico:scripts:run` on `node:diagnostics_channel`: a sync or action run finished (a run
 * skipped before it started — paused, already running — is not one).
 */
export const scriptChannels = {
  run: channel('portico:scripts:run'),
};

export interface ScriptRunEvent {
  environment: string;
  providerConfigKey: string;
  script: string;
  kind: 'sync' | 'action';
  outcome: 'success' | 'failed';
  /** The error code of a failed run. */
  code: string | null;
  durationMs: number;
}

export function scriptRan(event: ScriptRunEvent): void {
  if (scriptChannels.run.hasSubscribers) scriptChannels.run.publish(event);
}
