import { z } from 'zod';
import { isScript, type AnyScript } from '../../define/create.js';
import { ActionError } from '../../define/errors.js';
import type { ActionOutput, ScriptManifest, Task } from '../protocol.js';
import { createWorkerService, type Call, type Log } from './service.js';
import { check, CodedError } from './validate.js';

const loaded = new Map<string, Promise<AnyScript>>();

/** Imports a script module once per worker; its default export must come from createSync/createAction/createOnEvent. */
export function loadScript(file: string): Promise<AnyScript> {
  let pending = loaded.get(file);
  if (!pending) {
    pending = import(file).then((module: { default?: unknown }) => {
      const script = module.default;
      if (!isScript(script)) {
        throw new CodedError(
          'invalid_script',
          'the default export is not built with createSync, createAction or createOnEvent',
        );
      }
      return script;
    });
    // A failed import is not cached: the next run tries again (the file may have been fixed).
    pending.catch(() => loaded.delete(file));
    loaded.set(file, pending);
  }
  return pending;
}

function jsonSchema(schema: unknown): unknown {
  try {
    return z.toJSONSchema(schema as z.ZodType, { unrepresentable: 'any', io: 'input' });
  } catch {
    return null;
  }
}

export function manifestOf(script: AnyScript): ScriptManifest {
  const common = { type: script.type, description: script.description ?? null, version: script.version ?? null };
  if (script.type === 'sync') {
    return {
      ...common,
      frequency: script.frequency,
      syncType: script.syncType ?? 'full',
      autoStart: script.autoStart ?? true,
      detectDeletes: script.detectDeletes ?? true,
      models: Object.fromEntries(Object.entries(script.models).map(([name, schema]) => [name, jsonSchema(schema)])),
    };
  }
  if (script.type === 'action')
    return { ...common, input: jsonSchema(script.input), output: jsonSchema(script.output) };
  return { ...common, event: script.event };
}

/** Runs one task against a loaded script; what it returns is the run's result. */
export async function execute(script: AnyScript, task: Task, call: Call, log: Log): Promise<unknown> {
  if (task.type === 'inspect') return manifestOf(script);
  if (task.type !== script.type)
    throw new CodedError('invalid_script', `the script is a ${script.type}, not a ${task.type}`);
  if (task.type === 'sync') {
    const service = createWorkerService(
      script,
      task.context,
      { mode: task.mode, lastSyncDate: task.lastSyncDate },
      call,
      log,
    );
    await (script.exec as (service: unknown) => Promise<void>)(service);
    return null;
  }
  const service = createWorkerService(script, task.context, {}, call, log);
  if (task.type === 'on-event') {
    await (script.exec as (service: unknown) => Promise<void>)(service);
    return null;
  }
  if (script.type !== 'action') return null;
  const input = check(script.input, task.input, 'input');
  if (!input.ok) throw new CodedError('invalid_input', `${input.field}: ${input.message}`, input.field);
  let raw: unknown;
  try {
    raw = await (script.exec as (service: unknown, input: unknown) => Promise<unknown>)(service, input.value);
  } catch (error) {
    if (ActionError.is(error)) throw Object.assign(error, { code: 'action_error' });
    throw error;
  }
  const output = check(script.output, raw, 'output');
  if (!output.ok) throw new CodedError('invalid_output', `${output.field}: ${output.message}`, output.field);
  const json = JSON.stringify(output.value) ?? 'null';
  const result: ActionOutput = { json, bytes: Buffer.byteLength(json) };
  if (result.bytes > task.outputLimitBytes) {
    throw new CodedError(
      'output_too_large',
      `the action's output is ${result.bytes} bytes; the limit is ${task.outputLimitBytes} bytes (use the proxy for larger payloads)`,
    );
  }
  return result;
}
