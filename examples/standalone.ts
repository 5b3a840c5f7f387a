/**
 * The standalone gateway started from code, with the same configuration the `npm start`
 * server reads from the environment (see adapters/standalone/config.ts).
 * Run: npm run build && node dist/examples/standalone.js
 */
import { readConfig } from '../adapters/standalone/config.js';
import { startStandalone } from '../adapters/standalone/server.js';

export function startStandaloneExample(env: NodeJS.ProcessEnv = process.env) {
  return startStandalone(readConfig(env));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const standalone = await startStandaloneExample();
  process.once('SIGINT', () => void standalone.stop());
  process.once('SIGTERM', () => void standalone.stop());
}
