import type { IndexPosition } from './ordered-index.js';

/**
 * A value listed under a key in a keyed list (a search word, say): the list is ordered by key,
 * then id, and read from a prefix. Keys hold no control characters: the separator below must
 * sort under every character of a key, so that "ab" and its entries come before "ab ".
 */
export interface KeyedEntry {
  list: string;
  key: string;
}

/** One entry read from a keyed list, with the position to go on from. */
export interface KeyedHit {
  key: string;
  id: string;
  position: IndexPosition;
}

const separator = '\u0001';

/** The index id of a keyed entry: the key, then the value's id; stored at order 0. */
export const keyedEntryId = (key: string, id: string) => `${key}${separator}${id}`;

export function splitKeyedEntry(entryId: string): { key: string; id: string } {
  const at = entryId.indexOf(separator);
  return at < 0 ? { key: entryId, id: '' } : { key: entryId.slice(0, at), id: entryId.slice(at + 1) };
}

/** Whether `position` is one a read of keys starting with `prefix` can go on from. */
export const withinPrefix = (position: IndexPosition, prefix: string) =>
  position.order === 0 && position.id.startsWith(prefix);
