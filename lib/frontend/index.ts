// The browser SDK: plain ESM, no framework, no Node imports.
export { connect, type ConnectOptions, type ConnectSuccess } from './connect.js';
export { ConnectError } from './connect-error.js';
