/** What one check says; `detail` is shown to anyone who can reach the route, so never an internal message. */
export interface CheckResult {
  ok: boolean;
  detail?: string;
}

/** A readiness check: the store, a worker pool, a queue consumer… */
export type ReadinessCheck = () => CheckResult | Promise<CheckResult>;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult & { duration_ms: number }>;
}

/** A check that has not answered by then counts as failed: a load balancer must not wait on a hung part. */
export const checkTimeoutMs = 2_000;

/**
 * The checks behind `GET /health/ready`. Features (and the host application) register theirs
 * by name; the report runs them all at once, each bounded by `checkTimeoutMs`.
 */
export function createReadiness() {
  const checks = new Map<string, ReadinessCheck>();

  const runOne = async (check: ReadinessCheck): Promise<CheckResult & { duration_ms: number }> => {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${checkTimeoutMs} ms` }), checkTimeoutMs);
    });
    let result: CheckResult;
    try {
      result = await Promise.race([Promise.resolve().then(check), late]);
    } catch {
      result = { ok: false, detail: 'the check failed' };
    } finally {
      clearTimeout(timer);
    }
    return { ...result, duration_ms: Math.round(performance.now() - started) };
  };

  return {
    /** Adds (or replaces) the check called `name`. */
    register(name: string, check: ReadinessCheck): void {
      checks.set(name, check);
    },
    async report(): Promise<ReadinessReport> {
      const names = [...checks.keys()];
      const results = await Promise.all([...checks.values()].map(runOne));
      const out: ReadinessReport['checks'] = {};
      names.forEach((name, i) => {
        out[name] = results[i] as ReadinessReport['checks'][string];
      });
      return { ready: results.every((r) => r.ok), checks: out };
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
