import type * as Bullmq from 'bullmq';
import type * as Ioredis from 'ioredis';
import type Pg from 'pg';
import { onFirstUse } from '../../lib/on-first-use.js';

/*
 * Back-end libraries loaded when a store of their kind is first opened, not when this folder is
 * imported: a gateway on SQLite (the standalone server's default) never loads BullMQ (with
 * ioredis, luxon and msgpackr) nor pg.
 */
export const loadBullmq = onFirstUse<typeof Bullmq>('bullmq');
export const loadIoredis = onFirstUse<typeof Ioredis>('ioredis');
export const loadPg = onFirstUse<typeof Pg>('pg');
