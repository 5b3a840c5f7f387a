import t from 'tap';
import { createPorticoClient, PorticoError, type RecordsPage, type SyncedRecord } from '../../lib/client/index.js';
import type { PublicRecord, RecordsPage as ServedPage } from '../../lib/records/index.js';
import { devKey, startGateway } from '../helpers/gateway.js';

// Compile-time: the client's record metadata has exactly the fields the gateway serves.
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : false;
const metadataFields: Same<keyof SyncedRecord['_service_metadata'], keyof PublicRecord['_service_metadata']> = true;
const pageFields: Same<keyof RecordsPage, keyof ServedPage> = true;
void metadataFields;
void pageFields;

t.test('listRecords and recordPages through the Node client', async (t) => {
  const gw = await startGateway(t);
  const portico = createPorticoClient({ baseUrl: gw.url, secretKey: devKey });
  await portico.createIntegration({ unique_key: 'stripe', provider: 'stripe' });
  await portico.importConnection({
    provider_config_key: 'stripe',
    connection_id: 'acme',
    credentials: { type: 'API_KEY', apiKey: 'sk_1' },
  });
  const ref = { environment: 'dev', providerConfigKey: 'stripe', connectionId: 'acme', model: 'Invoice' };
  await gw.gateway.records.batchSave(
    ref,
    Array.from({ length: 23 }, (_, i) => ({ id: `in_${i}`, amount: i * 100 })),
  );
  const where = { providerConfigKey: 'stripe', connectionId: 'acme', model: 'Invoice' };

  const first = await portico.listRecords<{ amount: number }>({ ...where, limit: 10 });
  t.equal(first.records.length, 10);
  t.equal(first.records[3]?.amount, 300, 'typed fields');
  t.equal(first.records[0]?._service_metadata.last_action, 'ADDED');

  const pages: number[] = [];
  const seen: string[] = [];
  for await (const page of portico.recordPages({ ...where, limit: 10 })) {
    pages.push(page.records.length);
    seen.push(...page.records.map((r) => String(r.id)));
  }
  t.same(pages, [10, 10, 3], 'every page, lazily, until next_cursor is null');
  t.equal(new Set(seen).size, 23);

  const resume = first.records[9]!._service_metadata.cursor;
  await gw.gateway.records.batchDelete(ref, ['in_2']);
  const deleted = await portico.listRecords({ ...where, cursor: resume, filter: ['deleted', 'updated'] });
  t.same(
    deleted.records.map((r) => r.id),
    ['in_2'],
    'filter as an array becomes the comma union',
  );
  t.same(
    (await portico.listRecords({ ...where, ids: ['in_1', 'in_5'] })).records.map((r) => r.id),
    ['in_1', 'in_5'],
  );
  t.equal((await portico.listRecords({ ...where, modifiedAfter: new Date(Date.now() + 60_000) })).records.length, 0);

  const error = await portico.listRecords({ ...where, limit: 5000 }).catch((e: unknown) => e);
  t.ok(PorticoError.is(error));
  t.equal((error as PorticoError).code, 'invalid_limit');
  t.equal((error as PorticoError).status, 400);
});
