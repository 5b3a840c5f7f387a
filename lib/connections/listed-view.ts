import type { ValueView } from '../storage/index.js';

export { listedConnection } from './connection.js';

/** A listing's view of a stored connection, by name, so a page reader on another thread can load it. */
export const listedView: ValueView = { module: import.meta.url, name: 'listedConnection' };
