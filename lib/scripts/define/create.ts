import type { z } from 'zod';
import { parseFrequency } from './frequency.js';
import type { ActionService, ScriptService, SyncService } from './service.js';

/** Marks a value as built by `createSync`/`createAction`/`createOnEvent`, across package copies. */
export const scriptBrand = Symbol.for('portico.script');

/** A model: a zod schema whose output has an `id`. */
export type ModelSchema = z.ZodType<{ id: string | number }>;
type Models = Record<string, ModelSchema>;
type AnyObject = Record<string, unknown>;
type ObjectSchema = z.ZodType<AnyObject>;
type Out<S, Fallback> = S extends z.ZodType ? z.output<S> : Fallback;

export interface SyncDefinition<
  M extends Models,
  Meta extends ObjectSchema | undefined,
  Ck extends ObjectSchema | undefined,
> {
  description?: string;
  version?: string;
  /** `every 5 minutes`, `every hour`, `every day`… (minimum 1 minute unless the gateway says otherwise). */
  frequency: string;
  /** The models this sync writes, by name. Each schema's output has an `id`. */
  models: M;
  /** `full` (default): every run fetches everything. `incremental`: runs resume from the checkpoint. */
  syncType?: 'full' | 'incremental';
  /** Start on every new connection of the integration (default true). */
  autoStart?: boolean;
  /** Full runs mark deleted whatever they did not save (default true). */
  detectDeletes?: boolean;
  /** Shape of the connection metadata this script reads and writes. */
  metadata?: Meta;
  /** Shape of the incremental checkpoint. */
  checkpoint?: Ck;
  exec(
    service: SyncService<{ [K in keyof M]: z.input<M[K]> }, Out<Meta, AnyObject>, Out<Ck, AnyObject>>,
  ): Promise<void>;
}

export interface ActionDefinition<I extends z.ZodType, O extends z.ZodType, Meta extends ObjectSchema | undefined> {
  description?: string;
  version?: string;
  /** Validated before `exec` runs; a failure is a 400 naming the field. */
  input: I;
  /** Validated after `exec`; its JSON must stay under 2 MB. */
  output: O;
  metadata?: Meta;
  exec(service: ActionService<Out<Meta, AnyObject>>, input: z.output<I>): Promise<z.input<O>>;
}

export const scriptEvents = ['post-connection-creation'] as const;
export type ScriptEvent = (typeof scriptEvents)[number];

export interface OnEventDefinition<Meta extends ObjectSchema | undefined> {
  description?: string;
  version?: string;
  event: ScriptEvent;
  metadata?: Meta;
  exec(service: ScriptService<Out<Meta, AnyObject>>): Promise<void>;
}

export type SyncScript<
  M extends Models = Models,
  Meta extends ObjectSchema | undefined = undefined,
  Ck extends ObjectSchema | undefined = undefined,
> = SyncDefinition<M, Meta, Ck> & { readonly type: 'sync'; readonly [scriptBrand]: true };
export type ActionScript<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  Meta extends ObjectSchema | undefined = undefined,
> = ActionDefinition<I, O, Meta> & { readonly type: 'action'; readonly [scriptBrand]: true };
export type OnEventScript<Meta extends ObjectSchema | undefined = undefined> = OnEventDefinition<Meta> & {
  readonly type: 'on-event';
  readonly [scriptBrand]: true;
};

const modelName = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const isSchema = (value: unknown): value is z.ZodType =>
  typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';

function requireExec(exec: unknown, what: string): void {
  if (typeof exec !== 'function') throw new TypeError(`${what}: exec must be a function`);
}

/** A sync: declares its models and frequency; `exec` fetches and saves records. */
export function createSync<
  M extends Models,
  Meta extends ObjectSchema | undefined = undefined,
  Ck extends ObjectSchema | undefined = undefined,
>(definition: SyncDefinition<M, Meta, Ck>): SyncScript<M, Meta, Ck> {
  requireExec(definition.exec, 'createSync');
  // Seconds pass here (an operator may allow them); the gateway applies its own minimum at registration.
  const frequency = parseFrequency(String(definition.frequency), 1_000);
  if (!frequency.ok) throw new TypeError(`createSync: ${frequency.reason}`);
  const names = Object.keys(definition.models ?? {});
  if (names.length === 0) throw new TypeError('createSync: models must name at least one model');
  for (const name of names) {
    if (!modelName.test(name)) throw new TypeError(`createSync: model name "${name}" must match ${modelName}`);
    const schema = definition.models[name];
    if (!isSchema(schema)) throw new TypeError(`createSync: model "${name}" must be a zod schema`);
    const shape = (schema as { shape?: Record<string, unknown> }).shape;
    if (shape && !('id' in shape)) throw new TypeError(`createSync: model "${name}" must have an id field`);
  }
  if (definition.syncType !== undefined && definition.syncType !== 'full' && definition.syncType !== 'incremental') {
    throw new TypeError('createSync: syncType must be "full" or "incremental"');
  }
  return Object.freeze({ ...definition, type: 'sync' as const, [scriptBrand]: true as const });
}

/** An action: validated input in, validated output out, run on demand. */
export function createAction<
  I extends z.ZodType,
  O extends z.ZodType,
  Meta extends ObjectSchema | undefined = undefined,
>(definition: ActionDefinition<I, O, Meta>): ActionScript<I, O, Meta> {
  requireExec(definition.exec, 'createAction');
  if (!isSchema(definition.input)) throw new TypeError('createAction: input must be a zod schema');
  if (!isSchema(definition.output)) throw new TypeError('createAction: output must be a zod schema');
  return Object.freeze({ ...definition, type: 'action' as const, [scriptBrand]: true as const });
}

/** A script run on a connection event, e.g. a catalog's `post_connection_script`. */
export function createOnEvent<Meta extends ObjectSchema | undefined = undefined>(
  definition: OnEventDefinition<Meta>,
): OnEventScript<Meta> {
  requireExec(definition.exec, 'createOnEvent');
  if (!(scriptEvents as readonly string[]).includes(definition.event)) {
    throw new TypeError(`createOnEvent: event must be one of ${scriptEvents.join(', ')}`);
  }
  return Object.freeze({ ...definition, type: 'on-event' as const, [scriptBrand]: true as const });
}

export type AnyScript =
  | SyncScript<Models, ObjectSchema | undefined, ObjectSchema | undefined>
  | ActionScript<z.ZodType, z.ZodType, ObjectSchema | undefined>
  | OnEventScript<ObjectSchema | undefined>;

export function isScript(value: unknown): value is AnyScript {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[scriptBrand] === true &&
    ['sync', 'action', 'on-event'].includes(String((value as { type?: unknown }).type))
  );
}
