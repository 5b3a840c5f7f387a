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
    // Last resort only: draining has its own deadline and every part of the gateway one to
    // stop (5 s each); this fires only if something still hangs well past both.
    const force = setTimeout(() => {
      console.error('shutdown did not finish in time: exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 30_000);
    force.unref();
    standalone.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : String(error));
  process.exit(1);
}
