import type { Http } from './http.js';

/** `last_action` of a synced record (spec 2.2). */
export type RecordAction = 'ADDED' | 'UPDATED' | 'DELETED';
/** GET /records `filter` values; several mean the union. */
export type RecordFilter = 'added' | 'updated' | 'deleted';

export interface RecordMetadata {
  deleted_at: string | null;
  last_action: RecordAction;
  first_seen_at: string;
  last_modified_at: string;
  /** Keep the last one you processed: pass it as `cursor` to receive only later changes. */
  cursor: string;
  pruned_at: string | null;
}

/** A synced record: the model's fields (`id` among them) and `_service_metadata`. */
export type SyncedRecord<T extends object = Record<string, unknown>> = T & {
  id: string | number;
  _service_metadata: RecordMetadata;
};

export interface RecordsPage<T extends object = Record<string, unknown>> {
  records: SyncedRecord<T>[];
  /** Null on the last page. */
  next_cursor: string | null;
}

export interface ListRecordsOptions {
  providerConfigKey: string;
  connectionId: string;
  model: string;
  variant?: string;
  /** A record's `_service_metadata.cursor` or a page's `next_cursor`. */
  cursor?: string;
  /** 1 to 1000; the gateway's default is 100. */
  limit?: number;
  filter?: RecordFilter | readonly RecordFilter[];
  modifiedAfter?: Date | string;
  /** At most 100. */
  ids?: readonly (string | number)[];
}

/** Synced records (spec 4.3). */
export function createRecordsApi(http: Http) {
  const listRecords = async <T extends object = Record<string, unknown>>(
    options: ListRecordsOptions,
  ): Promise<RecordsPage<T>> => {
    const { filter, modifiedAfter } = options;
    const { body } = await http.json<RecordsPage<T>>('GET', '/records', {
      headers: { 'provider-config-key': options.providerConfigKey, 'connection-id': options.connectionId },
      query: {
        model: options.model,
        variant: options.variant,
        cursor: options.cursor,
        limit: options.limit,
        filter: filter === undefined ? undefined : typeof filter === 'string' ? filter : filter.join(','),
        modified_after: modifiedAfter instanceof Date ? modifiedAfter.toISOString() : modifiedAfter,
        ids: options.ids?.map(String),
      },
    });
    return body;
  };

  return {
    /** One page of records, oldest change first. */
    listRecords,
    /**
     * Every page from `options.cursor` (or the start) until `next_cursor` is null, fetched lazily:
     * `for await (const page of client.recordPages({ … })) …`.
     */
    async *recordPages<T extends object = Record<string, unknown>>(
      options: ListRecordsOptions,
    ): AsyncGenerator<RecordsPage<T>, void, undefined> {
      let cursor = options.cursor;
      for (;;) {
        const page = await listRecords<T>({ ...options, ...(cursor === undefined ? {} : { cursor }) });
        yield page;
        if (page.next_cursor === null) return;
        cursor = page.next_cursor;
      }
    },
  };
}
