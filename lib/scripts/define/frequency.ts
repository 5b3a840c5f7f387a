const unitMs = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
} as const;

const pattern = /^every\s+(?:(\d{1,6})\s+)?(second|minute|hour|day|week)s?$/i;

/** The default smallest interval a sync may declare; gateways may lower it (tests) or raise it. */
export const defaultMinimumFrequencyMs = 60_000;

export type FrequencyResult = { ok: true; ms: number } | { ok: false; reason: string };

/**
 * Reads `every 5 minutes`, `every minute`, `every 2 hours`, `every day`, `every week`.
 * Seconds parse too, so an operator can lower the minimum, but the default minimum refuses them.
 */
export function parseFrequency(text: string, minimumMs = defaultMinimumFrequencyMs): FrequencyResult {
  const match = pattern.exec(text.trim());
  if (!match) {
    return {
      ok: false,
      reason: `frequency "${text}" is not of the form "every <n> minutes|hours|days|weeks" or "every minute|hour|day|week"`,
    };
  }
  const count = match[1] === undefined ? 1 : Number(match[1]);
  const unit = match[2]!.toLowerCase() as keyof typeof unitMs;
  if (count < 1) return { ok: false, reason: `frequency "${text}" must repeat at least once per period` };
  const ms = count * unitMs[unit];
  if (ms < minimumMs) {
    return { ok: false, reason: `frequency "${text}" is below the minimum of ${describeMs(minimumMs)}` };
  }
  return { ok: true, ms };
}

export function describeMs(ms: number): string {
  for (const unit of ['week', 'day', 'hour', 'minute', 'second'] as const) {
    if (ms % unitMs[unit] === 0) {
      const n = ms / unitMs[unit];
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${ms} ms`;
}
