export {
  keepRenewed,
  LockTimeoutError,
  waitForLock,
  type Coordinator,
  type Lease,
  type LockOptions,
} from './coordinator.js';
