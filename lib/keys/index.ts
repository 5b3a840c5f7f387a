export { resealAll, type ResealProgress } from './reseal.js';
