import t from 'tap';
import { createRequestIds } from '../../lib/http/request-id.js';

t.test('request ids never repeat, within a process or across processes', async (t) => {
  const first = createRequestIds();
  const second = createRequestIds();
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    seen.add(first());
    seen.add(second());
  }
  t.equal(seen.size, 20_000, '20,000 ids from two generators, all different');
  const [a, b] = [first(), second()];
  t.not(a.split('-')[0], b.split('-')[0], 'each generator (process) draws its own random prefix');
  t.match(a, /^[0-9a-f]{16}-[0-9a-z]+$/);
});
