import type { KeyedEntry } from '../storage/index.js';
import type { StoredConnection } from './connection.js';

/**
 * Search by word start: a term matches a connection when the connection id, the end user's email
 * or display name has a word starting with it (case-insensitive; a word starts at the beginning
 * of the text or after a character that is neither a letter nor a digit, and the term may run on
 * across words: "ada@exa" matches "ada@example.com"). Each word start is kept in a keyed list,
 * so a page of results is a seek and the page, at any number of connections.
 */

/** Characters of a word start the index keeps: longer terms are sought by these, then checked on the records. */
export const indexedLength = 64;
/** Word starts indexed per field (a display name of 40 words is found by its first 10). */
const wordsPerField = 10;

const wordStart = /(?<![\p{L}\p{N}])[\p{L}\p{N}]/gu;

/** Lower case, control characters as spaces: keys hold none (lib/storage keyed-list.ts). */
const fold = (text: string) => text.toLowerCase().replace(/\p{Cc}/gu, ' ');

/** `email`: the top-level domain is no word start ("com" would find nearly every connection). */
function wordStarts(text: string | undefined, into: Set<string>, email = false): void {
  if (!text) return;
  const folded = fold(text);
  const dot = folded.lastIndexOf('.');
  const before = email && dot > folded.indexOf('@') ? dot : Infinity;
  let n = 0;
  for (const m of folded.matchAll(wordStart)) {
    if (m.index >= before) return;
    into.add(folded.slice(m.index));
    if (++n === wordsPerField) return;
  }
}

/** The text from each word start of the id, email and display name, folded, whole. */
function searchable(s: StoredConnection): Set<string> {
  const words = new Set<string>();
  wordStarts(s.connection_id, words);
  wordStarts(s.end_user?.email, words, true);
  wordStarts(s.end_user?.display_name, words);
  return words;
}

const keyOf = (word: string) => word.slice(0, indexedLength);

/**
 * The environment's search list. One list, not one per integration as well: each entry is a row
 * an import writes (a random place in an index, so about a page written per entry); a search
 * within an integration skips the others' entries by their id, without reading their records.
 */
export const searchList = 'search';

/** Where a connection is listed for search: each word start, once. */
export function searchKeys(s: StoredConnection): KeyedEntry[] {
  const keys = new Set<string>();
  for (const word of searchable(s)) keys.add(keyOf(word));
  return [...keys].map((key) => ({ list: searchList, key }));
}

/** The search entries of a connection id's own words: what a deletion can remove without the connection's value. */
export function idSearchKeys(connectionId: string): KeyedEntry[] {
  const words = new Set<string>();
  wordStarts(connectionId, words);
  return [...new Set([...words].map(keyOf))].map((key) => ({ list: searchList, key }));
}

/** The term as the index reads it: folded, leading punctuation dropped; undefined when no letter or digit is left. */
export function searchTerm(search: string): string | undefined {
  const term = fold(search).replace(/^[^\p{L}\p{N}]+/u, '');
  return term === '' ? undefined : term;
}

/** The key of the first entry under which `s` matches `term` (where a search lists it once), or undefined. */
export function matchKey(s: StoredConnection, term: string): string | undefined {
  let first: string | undefined;
  for (const word of searchable(s)) {
    if (!word.startsWith(term)) continue;
    const key = keyOf(word);
    if (first === undefined || key < first) first = key;
  }
  return first;
}

/** The prefix of the keys a term is sought by. */
export const searchPrefix = (term: string) => keyOf(term);
