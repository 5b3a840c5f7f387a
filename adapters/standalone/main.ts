#!/usr/bin/env node
import { ConfigError, readConfig } from './config.js';
import { removeSecretVariables } from './secrets.js';
import { startStandalone } from './server.js';

try {
  const config = readConfig(process.env);
  // The keys now live in the frozen configuration only.
  removeSecretVariables(process.env);
  const standalone = await startStandalone(config);
  const shutdown = (signal: string) => {
    console.log(`${signal} received: finishing requests in flight, then stopping.`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    standalone.stop().then(() => process.exit(0), (error: unknown) => {
      console.error('shutdown failed:', error);
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : String(error));
  process.exit(1);
}
