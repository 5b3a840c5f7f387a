// YYYY-MM-DD, optionally followed by a time and an offset. A `+` that a query-string decoder
// turned into a space is accepted as the `+` it was.
const pattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?)?$/;

/**
 * Parses an ISO 8601 date or date-time into epoch ms, or undefined when it is not one (or names
 * a day that does not exist). Without an offset the time is UTC. Digits below the millisecond
 * are dropped: `last_modified_at` has millisecond precision, so for every stored time m,
 * `m > T` and `m > floor(T)` agree.
 */
export function parseTimestamp(text: string): number | undefined {
  const m = pattern.exec(text.trim());
  if (!m) return undefined;
  const num = (i: number) => Number(m[i] ?? 0);
  const [year, month, day, hour, minute, second] = [num(1), num(2), num(3), num(4), num(5), num(6)];
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  // Not Date.UTC: it reads years below 100 as 19xx.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  // 31 February rolls over into March; such a day does not exist.
  if (date.getUTCDate() !== day) return undefined;
  const utc = date.getTime();
  if (m[9] === undefined) return utc;
  const [offsetHours, offsetMinutes] = [num(10), num(11)];
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const sign = m[9] === '-' ? -1 : 1;
  return utc - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}
