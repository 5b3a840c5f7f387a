// The work-queue port's one door; implementations live with the storage adapters.
export {
  queueDefaults,
  resolveQueueOptions,
  type WorkQueue,
  type NewJob,
  type ClaimedJob,
  type JobOutcome,
  type JobHandler,
  type WorkerOptions,
  type QueueCounts,
  type QueueOptions,
  type QueueFactory,
} from './work-queue.js';
