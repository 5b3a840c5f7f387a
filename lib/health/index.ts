export {
  createReadiness,
  checkTimeoutMs,
  type Readiness,
  type ReadinessCheck,
  type ReadinessReport,
  type CheckResult,
} from './readiness.js';
export { createHealthRoutes } from './routes.js';
export { storeCheck } from './store-check.js';
export { queueCheck } from './queue-check.js';
