import type { WebhookEventType } from '../payloads.js';

/** One body to one URL. Everything needed to send it and to record the attempts travels with it. */
export interface DeliveryJob {
  /** `<environment>.<seq>`: unique, and the key of the delivery's record. */
  id: string;
  environment: string;
  seq: number;
  delivery_id: string;
  type: WebhookEventType;
  connection_id: string | null;
  provider_config_key: string | null;
  target: 'primary' | 'secondary' | 'connection';
  url: string;
  /** The JSON body, exactly as it will be signed and sent. */
  body: string;
  created_at: string;
}

/** What the handler wants done with a job after one attempt. */
export type JobOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delayMs: number }
  /** The attempt was cut short by shutdown: keep the job, do not count the attempt. */
  | { kind: 'abandoned' };

/** Makes one attempt (`attempt` is 1-based); `signal` aborts it when the queue closes. */
export type JobHandler = (job: DeliveryJob, attempt: number, signal: AbortSignal) => Promise<JobOutcome>;

/**
 * The durable outbox. `enqueue` resolves only once the jobs are stored where a restart finds
 * them; the queue hands each job to one handler at a time, in one process of however many share it.
 */
export interface DeliveryQueue {
  readonly kind: string;
  enqueue(jobs: readonly DeliveryJob[]): Promise<void>;
  /** Starts working, beginning with whatever a previous process left pending. */
  start(handler: JobHandler): Promise<void>;
  /** Stops taking jobs and aborts attempts in flight; their jobs stay pending for the next start. */
  close(): Promise<void>;
}
