import type * as KeyvRedis from '@keyv/redis';
import type * as Bullmq from 'bullmq';
import type * as Ioredis from 'ioredis';
import type Pg from 'pg';
import { onFirstUse } from '../../lib/on-first-use.js';

/*
 * Back-end libraries loaded when a store of their kind is first opened, not when this folder is
 * imported: a gateway on SQLite (the standalone server's default) never loads BullMQ (with
 * ioredis, luxon and msgpackr), node-redis nor pg.
 */
/**
 * @keyv/redis with node-redis (@redis/client), about 3.5 MB of heap once loaded. @keyv/redis ships
 * an ES module and a CommonJS build; both load the one CommonJS @redis/client, so the client
 * class is the same whichever build made a client (a test's `import`, say).
 */
export const loadKeyvRedis = onFirstUse<typeof KeyvRedis>('@keyv/redis');
export const loadBullmq = onFirstUse<typeof Bullmq>('bullmq');
export const loadIoredis = onFirstUse<typeof Ioredis>('ioredis');
export const loadPg = onFirstUse<typeof Pg>('pg');
