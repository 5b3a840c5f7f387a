/*
 * The bare forwarder (bare.ts) as a process of its own, for benches that start each measured
 * proxy alone (bench/proxy-instructions.ts): the upstream's port is argv[2]; it prints the line
 * the standalone server prints once it listens.
 */
import type { AddressInfo } from 'node:net';
import { createBareForwarder } from './bare.js';

const server = createBareForwarder(`http://127.0.0.1:${process.argv[2]}`);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${port} (interface 127.0.0.1:${port})`);
});
process.on('SIGTERM', () => process.exit(0));
