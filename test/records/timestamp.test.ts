import t from 'tap';
import { parseTimestamp } from '../../lib/records/timestamp.js';

t.test('modified_after accepts ISO 8601 dates and date-times, nothing else', async (t) => {
  const at = (text: string) => parseTimestamp(text);
  t.equal(at('2026-01-05T10:11:12.345Z'), Date.parse('2026-01-05T10:11:12.345Z'));
  t.equal(
    at('2026-01-05T10:11:12.345+00:00'),
    Date.parse('2026-01-05T10:11:12.345Z'),
    'the form GET /records itself emits',
  );
  t.equal(at('2026-01-05T12:11:12+02:00'), Date.parse('2026-01-05T10:11:12Z'), 'offsets are honoured');
  t.equal(at('2026-01-05T05:41:12-0430'), Date.parse('2026-01-05T10:11:12Z'), 'offsets without a colon');
  t.equal(
    at('2026-01-05T12:11:12 02:00'),
    Date.parse('2026-01-05T10:11:12Z'),
    'a + decoded as a space by a query parser',
  );
  t.equal(at('2026-01-05T10:11:12'), Date.parse('2026-01-05T10:11:12Z'), 'no offset means UTC');
  t.equal(at('2026-01-05 10:11'), Date.parse('2026-01-05T10:11:00Z'));
  t.equal(at('2026-01-05'), Date.parse('2026-01-05T00:00:00Z'), 'a date alone is midnight UTC');
  t.equal(
    at('2026-01-05T10:11:12.345678Z'),
    Date.parse('2026-01-05T10:11:12.345Z'),
    'below the millisecond is dropped',
  );
  t.equal(at('0001-01-01T00:00:00Z'), Date.parse('0001-01-01T00:00:00Z'), 'years below 100 are not read as 19xx');
  t.equal(at('2024-02-29T00:00:00Z'), Date.parse('2024-02-29T00:00:00Z'));
  for (const bad of [
    '2025-02-29',
    '2026-13-01',
    '2026-01-05T24:00:00Z',
    '2026-01-05T10:60Z',
    '2026-01-05T10:11:12+25:00',
    'yesterday',
    '1700000000',
    '',
    '2026-1-5',
    '2026-01-05T10',
    '2026-01-05T10:11:12ZZ',
  ]) {
    t.equal(at(bad), undefined, `"${bad}" is refused`);
  }
});
