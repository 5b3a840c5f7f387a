import type { CompiledScript } from '../build/compile.js';

/** A script as `GET /scripts` lists it (the fields the plan reads). */
export interface ListedScript {
  name: string;
  integration: string;
  type: string;
  origin: string;
  hash?: string | null;
  models?: Record<string, unknown>;
}

export interface PlannedChange {
  integration: string;
  name: string;
  type: string;
  change: 'added' | 'changed' | 'unchanged' | 'removed';
  /** Why this change loses something: a removed sync, a removed model. */
  destructive: string | null;
}

export interface DeployPlan {
  changes: PlannedChange[];
  destructive: PlannedChange[];
  /** Anything to upload at all. */
  changesSomething: boolean;
}

const key = (s: { integration: string; name: string }) => `${s.integration}/${s.name}`;

function lostModels(previous: ListedScript, next: CompiledScript): string | null {
  if (previous.type !== 'sync') return null;
  if (next.type !== 'sync')
    return `sync replaced by ${next.type === 'action' ? 'an action' : `an ${next.type} script`} (its schedules stop)`;
  const kept = new Set(Object.keys(next.manifest.models ?? {}));
  const gone = Object.keys(previous.models ?? {}).filter((m) => !kept.has(m));
  return gone.length > 0 ? `drops model${gone.length === 1 ? '' : 's'} ${gone.join(', ')} (no longer synced)` : null;
}

/**
 * What replacing the environment's deployed scripts with `next` changes. A deploy replaces all
 * of them, so a deployed sync missing from `next` is removed: that, and a sync losing a model,
 * is destructive.
 */
export function planDeploy(listed: readonly ListedScript[], next: readonly CompiledScript[]): DeployPlan {
  const deployed = new Map(listed.filter((s) => s.origin === 'deploy').map((s) => [key(s), s]));
  const changes: PlannedChange[] = next.map((s) => {
    const previous = deployed.get(key(s));
    const base = { integration: s.integration, name: s.name, type: s.type };
    if (!previous) return { ...base, change: 'added', destructive: null };
    const same = typeof previous.hash === 'string' && previous.hash === s.sha256;
    return { ...base, change: same ? 'unchanged' : 'changed', destructive: same ? null : lostModels(previous, s) };
  });
  const kept = new Set(next.map(key));
  for (const previous of deployed.values()) {
    if (kept.has(key(previous))) continue;
    changes.push({
      integration: previous.integration,
      name: previous.name,
      type: previous.type,
      change: 'removed',
      destructive: previous.type === 'sync' ? 'sync removed (its schedules stop; stored records stay)' : null,
    });
  }
  changes.sort((a, b) => key(a).localeCompare(key(b)));
  return {
    changes,
    destructive: changes.filter((c) => c.destructive !== null),
    changesSomething: changes.some((c) => c.change !== 'unchanged'),
  };
}

const marks = { added: '+', changed: '~', unchanged: '=', removed: '-' } as const;

export function planLines(plan: DeployPlan): string[] {
  const width = Math.max(0, ...plan.changes.map((c) => key(c).length));
  return plan.changes.map(
    (c) =>
      `  ${marks[c.change]} ${key(c).padEnd(width)}  ${c.type}, ${c.change}${c.destructive ? ` — DESTRUCTIVE: ${c.destructive}` : ''}`,
  );
}
