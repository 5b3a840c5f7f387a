import t from 'tap';
import type { Tap } from './contract.js';
import { prodKey, startGateway, type TestGateway } from '../helpers/gateway.js';

const headers = (connectionId = 'user-1', providerConfigKey = 'stripe') => ({
  'connection-id': connectionId,
  'provider-config-key': providerConfigKey,
});

/** An integration with two connections in dev and one in prod, each with its own records. */
async function setUp(t: Tap, gw: TestGateway) {
  for (const key of [undefined, prodKey]) {
    await gw.call('POST', '/integrations', {
      body: { unique_key: 'stripe', provider: 'stripe' },
      ...(key ? { key } : {}),
    });
  }
  for (const id of ['user-1', 'user-2']) {
    t.equal(
      (
        await gw.call('POST', '/connections', {
          body: { provider_config_key: 'stripe', connection_id: id, credentials: { type: 'API_KEY', apiKey: 'sk_x' } },
        })
      ).status,
      201,
    );
  }
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', connection_id: 'user-1', credentials: { type: 'API_KEY', apiKey: 'sk_p' } },
    key: prodKey,
  });
  const ref = { environment: 'dev', providerConfigKey: 'stripe', connectionId: 'user-1', model: 'Customer' };
  return ref;
}

/** Waits for the clock to pass `ms`, so the next save gets a later last_modified_at. */
async function after(ms: number) {
  while (Date.now() <= ms) await new Promise((resolve) => setTimeout(resolve, 1));
}

const get = (gw: TestGateway, query: string, init: { headers?: Record<string, string>; key?: string } = {}) =>
  gw.call('GET', `/records${query}`, { headers: init.headers ?? headers(), ...(init.key ? { key: init.key } : {}) });

t.test('GET /records: pages, cursors, filters and metadata over HTTP', async (t) => {
  const gw = await startGateway(t);
  const ref = await setUp(t, gw);
  const { records } = gw.gateway;
  await records.batchSave(
    ref,
    Array.from({ length: 150 }, (_, i) => ({ id: i, name: `Customer ${i}` })),
  );

  const first = await get(gw, '?model=Customer');
  t.equal(first.status, 200);
  t.equal(first.json.records.length, 100, 'default page size 100');
  t.same(first.json.records[0], {
    id: 0,
    name: 'Customer 0',
    _service_metadata: first.json.records[0]._service_metadata,
  });
  t.equal(first.json.next_cursor, first.json.records[99]._service_metadata.cursor);
  const second = await get(gw, `?model=Customer&cursor=${encodeURIComponent(first.json.next_cursor)}`);
  t.same(
    second.json.records.map((r: { id: number }) => r.id),
    Array.from({ length: 50 }, (_, i) => 100 + i),
  );
  t.equal(second.json.next_cursor, null, 'null on the last page');
  t.equal(
    (await get(gw, '?model=Customer&limit=1000')).json.records.length,
    150,
    'the documented maximum limit is accepted',
  );

  const lastCursor = second.json.records[49]._service_metadata.cursor as string;
  const savedAt = Date.parse(second.json.records[49]._service_metadata.last_modified_at);
  await after(savedAt);
  t.same(
    await records.batchSave(ref, [
      { id: 3, name: 'Renamed' },
      { id: 500, name: 'New' },
    ]),
    { added: 1, updated: 1, unchanged: 0 },
  );
  await records.batchDelete(ref, [7]);

  const changes = await get(gw, `?model=Customer&cursor=${lastCursor}`);
  t.same(
    changes.json.records.map((r: { id: number; _service_metadata: { last_action: string } }) => [
      r.id,
      r._service_metadata.last_action,
    ]),
    [
      [3, 'UPDATED'],
      [500, 'ADDED'],
      [7, 'DELETED'],
    ],
    "changes since a record's cursor, in modification order",
  );
  const byFilter = async (filter: string) =>
    (await get(gw, `?model=Customer&cursor=${lastCursor}&filter=${filter}`)).json.records.map(
      (r: { id: number }) => r.id,
    );
  t.same(await byFilter('added'), [500]);
  t.same(await byFilter('updated'), [3]);
  t.same(await byFilter('deleted'), [7]);
  t.same(await byFilter('added,deleted'), [500, 7], 'a comma list means the union');
  t.same(await byFilter('UPDATED,added'), [3, 500], 'case does not matter');
  t.same(
    (await get(gw, `?model=Customer&cursor=${lastCursor}&filter=added&filter=deleted`)).json.records.map(
      (r: { id: number }) => r.id,
    ),
    [500, 7],
    'a repeated filter means the union too',
  );

  const modified = await get(
    gw,
    `?model=Customer&modified_after=${encodeURIComponent(new Date(savedAt).toISOString())}`,
  );
  t.same(
    modified.json.records.map((r: { id: number }) => r.id),
    [3, 500, 7],
  );
  t.equal(modified.headers.get('deprecation'), null);
  const offset = new Date(savedAt + 2 * 3600_000).toISOString().replace('Z', '+02:00');
  t.same(
    (await get(gw, `?model=Customer&modified_after=${encodeURIComponent(offset)}`)).json.records.length,
    3,
    'offsets are honoured',
  );
  t.same(
    (await get(gw, `?model=Customer&modified_after=${offset}`)).json.records.length,
    3,
    'an unencoded + (read as a space) still parses',
  );

  const delta = await get(gw, `?model=Customer&delta=${encodeURIComponent(new Date(savedAt).toISOString())}`);
  t.equal(delta.status, 200, 'delta still works, as the deprecated alias of modified_after');
  t.same(
    delta.json.records.map((r: { id: number }) => r.id),
    [3, 500, 7],
  );
  t.equal(delta.headers.get('deprecation'), 'true');
  t.match(delta.headers.get('warning'), /modified_after/);

  const byIds = await get(gw, '?model=Customer&ids=500&ids=3&ids=nope&ids=12');
  t.same(
    byIds.json.records.map((r: { id: number }) => r.id),
    [12, 3, 500],
    'repeated ids, in modification order',
  );
  t.same(
    (await get(gw, '?model=Customer&ids[]=3&ids[]=12')).json.records.map((r: { id: number }) => r.id),
    [12, 3],
    'ids[] works too',
  );
  t.same(
    (await get(gw, '?model=Customer&ids=3,12')).json.records.map((r: { id: number }) => r.id),
    [12, 3],
    'a comma list is two ids',
  );
  t.same(
    (await get(gw, '?model=Customer&ids=3,12&ids=500')).json.records.map((r: { id: number }) => r.id),
    [12, 3, 500],
    'a list and a repeat combine',
  );
  await records.batchSave(ref, [{ id: '3,12', name: 'comma id' }]);
  t.same(
    (await get(gw, '?model=Customer&ids=3%2C12')).json.records.map((r: { name: string }) => r.name),
    ['comma id'],
    'an encoded comma is part of the id',
  );
  t.same(
    (await get(gw, `?model=Customer&ids=3&ids=7&filter=deleted&cursor=${lastCursor}&limit=5`)).json.records.map(
      (r: { id: number }) => r.id,
    ),
    [7],
    'all parameters combine',
  );
});

t.test('GET /records: every bad input is a 400 naming the parameter, and changes nothing', async (t) => {
  const gw = await startGateway(t);
  const ref = await setUp(t, gw);
  await gw.gateway.records.batchSave(ref, [{ id: 1 }]);
  const otherCursor = await (async () => {
    await gw.gateway.records.batchSave({ ...ref, connectionId: 'user-2' }, [{ id: 1 }]);
    return (await get(gw, '?model=Customer', { headers: headers('user-2') })).json.records[0]._service_metadata
      .cursor as string;
  })();
  const variantCursor = await (async () => {
    await gw.gateway.records.batchSave({ ...ref, variant: 'eu' }, [{ id: 1 }]);
    return (await get(gw, '?model=Customer&variant=eu')).json.records[0]._service_metadata.cursor as string;
  })();
  const cases: [query: string, code: string, field: string][] = [
    ['', 'missing_model', 'model'],
    ['?limit=5', 'missing_model', 'model'],
    ['?model=', 'invalid_model', 'model'],
    ['?model=A&model=B', 'invalid_model', 'model'],
    [`?model=${'m'.repeat(256)}`, 'invalid_model', 'model'],
    ['?model=Customer&variant=', 'invalid_variant', 'variant'],
    ['?model=Customer&filter=created', 'invalid_filter', 'filter'],
    ['?model=Customer&filter=added,', 'invalid_filter', 'filter'],
    ['?model=Customer&filter=', 'invalid_filter', 'filter'],
    ['?model=Customer&limit=0', 'invalid_limit', 'limit'],
    ['?model=Customer&limit=1001', 'invalid_limit', 'limit'],
    ['?model=Customer&limit=-1', 'invalid_limit', 'limit'],
    ['?model=Customer&limit=ten', 'invalid_limit', 'limit'],
    ['?model=Customer&limit=1.5', 'invalid_limit', 'limit'],
    ['?model=Customer&limit=1&limit=2', 'invalid_limit', 'limit'],
    ['?model=Customer&cursor=', 'invalid_cursor', 'cursor'],
    ['?model=Customer&cursor=%%%', 'invalid_cursor', 'cursor'],
    ['?model=Customer&cursor=bm90IGEgY3Vyc29y', 'invalid_cursor', 'cursor'],
    [`?model=Customer&cursor=${otherCursor}`, 'invalid_cursor', 'cursor'],
    [`?model=Customer&cursor=${variantCursor}`, 'invalid_cursor', 'cursor'],
    [`?model=Order&cursor=${variantCursor}`, 'invalid_cursor', 'cursor'],
    ['?model=Customer&modified_after=yesterday', 'invalid_modified_after', 'modified_after'],
    ['?model=Customer&modified_after=2026-02-30T00:00:00Z', 'invalid_modified_after', 'modified_after'],
    ['?model=Customer&modified_after=2026-01-01T25:00:00Z', 'invalid_modified_after', 'modified_after'],
    ['?model=Customer&modified_after=1700000000', 'invalid_modified_after', 'modified_after'],
    ['?model=Customer&delta=soon', 'invalid_delta', 'delta'],
    ['?model=Customer&delta=2026-01-01&modified_after=2026-01-01', 'invalid_delta', 'delta'],
    [`?model=Customer&${Array.from({ length: 101 }, (_, i) => `ids=${i}`).join('&')}`, 'too_many_ids', 'ids'],
    ['?model=Customer&ids=', 'invalid_ids', 'ids'],
    ['?model=Customer&ids=a,,b', 'invalid_ids', 'ids'],
    [`?model=Customer&ids=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, 'too_many_ids', 'ids'],
    ['?model=Customer&colour=red', 'unknown_parameter', 'colour'],
    ['?model=Customer&connection_id=user-2', 'unknown_parameter', 'connection_id'],
  ];
  for (const [query, code, field] of cases) {
    const res = await get(gw, query);
    t.equal(res.status, 400, `${query.slice(0, 80)} → 400`);
    t.equal(res.json?.error?.code, code, `${query.slice(0, 80)} → ${code}`);
    t.equal(res.json?.error?.field, field);
    t.match(res.json?.error?.message, field);
  }
  t.equal(
    (await get(gw, `?model=Customer&${Array.from({ length: 100 }, (_, i) => `ids=${i}`).join('&')}`)).status,
    200,
    '100 ids are fine',
  );
  t.same(
    (await get(gw, '?model=Customer')).json.records.map((r: { id: number }) => r.id),
    [1],
    'nothing changed',
  );
  t.equal(
    (await get(gw, '?model=Nothing')).json.records.length,
    0,
    'a model never synced is an empty page, not an error',
  );
});

t.test('GET /records: headers, connections and environments', async (t) => {
  const gw = await startGateway(t);
  const ref = await setUp(t, gw);
  await gw.gateway.records.batchSave(ref, [{ id: 'dev-1', secret: 'dev only' }]);
  await gw.gateway.records.batchSave({ ...ref, environment: 'prod' }, [{ id: 'prod-1' }]);

  const noKey = await gw.call('GET', '/records?model=Customer', { headers: headers(), key: null });
  t.equal(noKey.status, 401, 'the secret key is required');
  const noConnection = await get(gw, '?model=Customer', { headers: { 'provider-config-key': 'stripe' } });
  t.same([noConnection.status, noConnection.json.error.code], [400, 'missing_connection_id']);
  const noIntegration = await get(gw, '?model=Customer', { headers: { 'connection-id': 'user-1' } });
  t.same([noIntegration.status, noIntegration.json.error.code], [400, 'missing_provider_config_key']);
  const unknown = await get(gw, '?model=Customer', { headers: headers('nobody') });
  t.same([unknown.status, unknown.json.error.code], [404, 'unknown_connection']);
  t.same(
    (await get(gw, '?model=Customer', { headers: headers('user-1', 'github') })).status,
    404,
    'an unknown integration is not found either',
  );

  t.same(
    (await get(gw, '?model=Customer', { headers: headers('user-2') })).json.records,
    [],
    'another connection sees none of them',
  );
  const prod = await get(gw, '?model=Customer', { key: prodKey });
  t.same(
    prod.json.records.map((r: { id: string }) => r.id),
    ['prod-1'],
    'the same connection id in prod has its own records',
  );
  t.notMatch(prod.text, 'dev only');

  // Deleting the connection deletes its records; a connection re-created with the same id starts empty.
  t.equal((await gw.call('DELETE', '/connections/user-1?provider_config_key=stripe')).status, 200);
  await gw.call('POST', '/connections', {
    body: { provider_config_key: 'stripe', connection_id: 'user-1', credentials: { type: 'API_KEY', apiKey: 'sk_x' } },
  });
  t.same((await get(gw, '?model=Customer')).json.records, []);
  t.same((await get(gw, '?model=Customer', { key: prodKey })).json.records.length, 1, 'prod is untouched');
});
