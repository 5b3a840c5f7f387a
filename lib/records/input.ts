import { fail } from '../errors.js';
import type { RecordData } from './stored.js';

/** Longest record id accepted; ids are part of storage keys. */
export const MAX_ID_LENGTH = 1024;

/** A record's id as the store keys it: strings as they are, numbers in their decimal form. */
export function idOf(value: unknown, field: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH) return value;
  fail(
    'invalid_request',
    `${field}: a record id must be a non-empty string of at most ${MAX_ID_LENGTH} characters or a finite number.`,
    { field },
  );
}

/**
 * Validates a batch to save: plain objects with an `id`. Our metadata key is dropped from the
 * payload (the store owns it). The last record wins when an id repeats within the batch.
 */
export function recordsToSave(records: readonly unknown[]): Map<string, RecordData> {
  const byId = new Map<string, RecordData>();
  records.forEach((value, index) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      fail('invalid_request', `records[${index}]: a record must be a JSON object with an id.`, {
        field: `records[${index}]`,
      });
    }
    let data = value as RecordData;
    if (Object.hasOwn(data, '_service_metadata')) {
      const { _service_metadata: _ignored, ...rest } = data;
      data = rest;
    }
    const id = idOf(data.id, `records[${index}].id`);
    byId.delete(id);
    byId.set(id, data);
  });
  return byId;
}

/** Ids to delete, given as ids or as records carrying one. Duplicates count once. */
export function idsToDelete(items: readonly unknown[]): string[] {
  const ids = new Set<string>();
  items.forEach((item, index) => {
    const isRecord = item !== null && typeof item === 'object' && !Array.isArray(item);
    ids.add(idOf(isRecord ? (item as RecordData).id : item, isRecord ? `records[${index}].id` : `ids[${index}]`));
  });
  return [...ids];
}
