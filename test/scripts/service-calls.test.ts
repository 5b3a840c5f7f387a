import t from 'tap';
import type { PorticoClient } from '../../lib/client/index.js';
import type { ConnectionService } from '../../lib/connections/index.js';
import { createDryRunCalls, type DryRunState } from '../../lib/cli/dryrun/calls.js';
import { createRecordTracker } from '../../lib/cli/dryrun/records.js';
import type { ScriptHost } from '../../lib/scripts/index.js';
import { createCallHandler } from '../../lib/scripts/run/calls.js';
import type { SyncStateStore } from '../../lib/scripts/state/sync-state.js';

/*
 * The gateway and the CLI's dry run used to dispatch a script's service calls each in its own
 * way: the dry run let a sync write a model it does not declare, gave actions a checkpoint, and
 * skipped the gateway's proxy rules. Both now implement the same ports under one dispatcher.
 */
const scope = { environment: 'dev', providerConfigKey: 'crm', connectionId: 'c1' };
const unused = new Proxy(
  {},
  {
    get: (_t, name) => {
      throw new Error(`unexpected use of ${String(name)}`);
    },
  },
);

function gatewayCalls(kind: 'sync' | 'action') {
  const notCalled = async () => {
    throw new Error('the host was called');
  };
  const records = { batchSave: notCalled, batchUpdate: notCalled, batchDelete: notCalled };
  const host = { records, proxyRequest: notCalled, emit: notCalled } as unknown as ScriptHost;
  const sync =
    kind === 'sync'
      ? {
          target: { ...scope, sync: 's' },
          states: unused as SyncStateStore,
          models: ['Doc'],
          mode: 'incremental' as const,
          counts: {},
        }
      : undefined;
  return createCallHandler(
    { host, connections: unused as ConnectionService },
    scope,
    sync,
    new AbortController().signal,
  );
}

function dryRunCalls(kind: 'sync' | 'action') {
  const state: DryRunState = {
    metadata: {},
    metadataWrites: [],
    checkpoint: { since: '1' },
    checkpointSaved: false,
    mode: kind === 'sync' ? 'incremental' : undefined,
    proxyCalls: 0,
  };
  const client = unused as PorticoClient;
  return createDryRunCalls({
    client,
    environment: 'dry-run',
    providerConfigKey: 'crm',
    connectionId: 'c1',
    records: createRecordTracker(client, scope),
    fixtures: undefined,
    state,
    models: kind === 'sync' ? ['Doc'] : undefined,
  });
}

const table: [what: string, kind: 'sync' | 'action', method: string, args: unknown[], error: RegExp][] = [
  ['a model the sync does not declare', 'sync', 'batchSave', ['Other', [{ id: 1 }]], /not a model of this sync: Other/],
  ['records from an action', 'action', 'batchUpdate', ['Doc', [{ id: 1 }]], /not a model of this sync/],
  ['a checkpoint read by an action', 'action', 'getCheckpoint', [], /checkpoints belong to syncs/],
  ['a checkpoint saved by an action', 'action', 'saveCheckpoint', [{ a: 1 }], /checkpoints belong to syncs/],
  ['records that are not an array', 'sync', 'batchDelete', ['Doc', 'x'], /records must be an array/],
  ['a URL instead of a path', 'sync', 'proxy', [{ endpoint: 'https://evil.example/x' }], /endpoint must be a path/],
  ['too many retries', 'action', 'proxy', [{ endpoint: '/x', retries: 99 }], /retries must be an integer from 0 to 10/],
  ['a method of its own', 'action', 'proxy', [{ endpoint: '/x', method: 'TRACE' }], /method TRACE is not one of/],
  ['metadata that is not an object', 'action', 'setMetadata', [[1, 2]], /metadata must be an object/],
  ['an unknown call', 'action', 'dropTables', [], /unknown service call dropTables/],
];

for (const [what, kind, method, args, error] of table) {
  t.test(`${what}: refused alike by the gateway and the dry run`, async (t) => {
    await t.rejects(gatewayCalls(kind)(method, args), error, 'gateway');
    await t.rejects(dryRunCalls(kind)(method, args), error, 'dry run');
  });
}
