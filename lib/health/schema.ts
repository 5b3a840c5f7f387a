import { z } from 'zod';

/** `GET /health`. */
export const livenessSchema = z.object({ status: z.literal('ok') });

/** `GET /health/ready`: each check's result by name (the same body with 503 when one fails). */
export const readinessSchema = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional(), duration_ms: z.number() })),
});
