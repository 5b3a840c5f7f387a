import t from 'tap';
import { z } from 'zod';
import { createAction, createSync, parseFrequency } from '../../lib/scripts/index.js';
import { linkWithRel } from '../../lib/providers/protocol/index.js';
import { linkToEndpoint, paginate } from '../../lib/scripts/runtime/paginate.js';

t.test('frequencies: the documented forms, and the minimum', async (t) => {
  t.match(parseFrequency('every 5 minutes'), { ok: true, ms: 300_000 });
  t.match(parseFrequency('every minute'), { ok: true, ms: 60_000 });
  t.match(parseFrequency('Every 2 Hours'), { ok: true, ms: 7_200_000 });
  t.match(parseFrequency('every day'), { ok: true, ms: 86_400_000 });
  t.match(parseFrequency('every week'), { ok: true, ms: 604_800_000 });
  t.match(parseFrequency('every 30 seconds'), { ok: false, reason: /below the minimum of 1 minute/ });
  t.match(parseFrequency('every 30 seconds', 1_000), { ok: true, ms: 30_000 }, 'an operator may lower the minimum');
  t.match(parseFrequency('hourly'), { ok: false, reason: /not of the form/ });
  t.match(parseFrequency('every 0 minutes'), { ok: false });
});

t.test('createSync and createAction refuse malformed definitions', async (t) => {
  const exec = async () => {};
  t.throws(
    () => createSync({ frequency: 'sometimes', models: { A: z.object({ id: z.string() }) }, exec }),
    /frequency "sometimes"/,
  );
  t.throws(() => createSync({ frequency: 'every hour', models: {}, exec }), /at least one model/);
  t.throws(
    () => createSync({ frequency: 'every hour', models: { A: z.object({ name: z.string() }) as never }, exec }),
    /must have an id field/,
  );
  t.throws(
    () => createSync({ frequency: 'every hour', models: { 'bad name': z.object({ id: z.string() }) }, exec }),
    /model name "bad name"/,
  );
  t.throws(
    () => createAction({ input: {} as never, output: z.object({}), exec: async () => ({}) }),
    /input must be a zod schema/,
  );
  const sync = createSync({ frequency: 'every hour', models: { A: z.object({ id: z.string() }) }, exec });
  t.equal(sync.type, 'sync');
  t.ok(Object.isFrozen(sync));
});

t.test('paginate: cursor, link header, body link and offset; links stay on the provider', async (t) => {
  const pages = async (
    config: Parameters<typeof paginate>[1],
    responses: { data: unknown; headers?: Record<string, string> }[],
  ) => {
    const sent: unknown[] = [];
    const out: unknown[][] = [];
    let i = 0;
    for await (const page of paginate(
      { endpoint: '/items', params: { q: 'x' } },
      config,
      'https://api.example.com/v1',
      async (request) => {
        sent.push({ endpoint: request.endpoint, params: request.params });
        const r = responses[i++] ?? { data: [] };
        return { status: 200, headers: r.headers ?? {}, data: r.data };
      },
    ))
      out.push(page);
    return { sent, out };
  };
  const cursor = await pages(
    {
      type: 'cursor',
      cursor_path_in_response: 'meta.next',
      cursor_name_in_request: 'after',
      response_path: 'data',
      limit_name_in_request: 'limit',
      limit: 2,
    },
    [{ data: { data: [1, 2], meta: { next: 'c2' } } }, { data: { data: [3], meta: { next: null } } }],
  );
  t.same(cursor.out, [[1, 2], [3]]);
  t.same(cursor.sent, [
    { endpoint: '/items', params: { q: 'x', limit: 2 } },
    { endpoint: '/items', params: { q: 'x', limit: 2, after: 'c2' } },
  ]);

  const header = await pages({ type: 'link', link_rel_in_response_header: 'next' }, [
    {
      data: [1],
      headers: {
        link: '<https://api.example.com/v1/items?page=2>; rel="next", <https://api.example.com/v1/items?page=9>; rel="last"',
      },
    },
    { data: [2] },
  ]);
  t.same(header.sent, [
    { endpoint: '/items', params: { q: 'x' } },
    { endpoint: '/items', params: { page: '2' } },
  ]);
  const body = await pages({ type: 'link', link_path_in_response_body: '@odata.nextLink', response_path: 'value' }, [
    { data: { value: [1], '@odata.nextLink': 'https://api.example.com/v1/items?$skiptoken=abc' } },
    { data: { value: [2] } },
  ]);
  t.same(body.out, [[1], [2]]);
  await t.rejects(
    pages({ type: 'link', link_rel_in_response_header: 'next' }, [
      { data: [1], headers: { link: '<https://evil.example/steal>; rel="next"' } },
    ]),
    /outside the provider's base URL/,
  );
  t.throws(() => linkToEndpoint('https://api.example.com/v2/items', 'https://api.example.com/v1'), /outside/);
  t.equal(linkWithRel('<a>; rel="prev", <b>; rel="next"', 'next'), 'b');

  const offset = await pages(
    { type: 'offset', offset_name_in_request: 'offset', limit_name_in_request: 'limit', limit: 2 },
    [{ data: [1, 2] }, { data: [3] }],
  );
  t.same(offset.out, [[1, 2], [3]]);
  t.same(
    offset.sent,
    [
      { endpoint: '/items', params: { q: 'x', limit: 2, offset: 0 } },
      { endpoint: '/items', params: { q: 'x', limit: 2, offset: 2 } },
    ],
    'stops after a short page',
  );
});
