import { channel } from 'node:diagnostics_channel';

/**
 * Token renewals on `node:diagnostics_channel` (metrics and traces attach here):
 *
 *   portico:credentials:refresh:start  the gateway asks the provider for a new token
 *   portico:credentials:refresh:end    the same event object, with the outcome
 *
 * `authMode` `APP` is a code-hosting app installation token being minted.
 */
export const credentialChannels = {
  refreshStart: channel('portico:credentials:refresh:start'),
  refreshEnd: channel('portico:credentials:refresh:end'),
};

export interface RefreshEvent {
  environment: string;
  providerConfigKey: string;
  connectionId: string;
  provider: string;
  authMode: string;
  startedAt: number;
  /** Set at the end: `renewed`, `refused` (the provider said no), `unavailable` (it could not be asked) or `error`. */
  outcome?: 'renewed' | 'refused' | 'unavailable' | 'error';
  durationMs?: number;
}

const listening = () => credentialChannels.refreshStart.hasSubscribers || credentialChannels.refreshEnd.hasSubscribers;

/** Publishes the start; undefined (and nothing built) when no one listens. */
export function refreshStarted(subject: Omit<RefreshEvent, 'startedAt'>): RefreshEvent | undefined {
  if (!listening()) return undefined;
  const event: RefreshEvent = { ...subject, startedAt: performance.now() };
  credentialChannels.refreshStart.publish(event);
  return event;
}

export function refreshEnded(event: RefreshEvent | undefined, outcome: NonNullable<RefreshEvent['outcome']>): void {
  if (!event) return;
  event.outcome = outcome;
  event.durationMs = performance.now() - event.startedAt;
  credentialChannels.refreshEnd.publish(event);
}
