import { z } from 'zod';

const hexColour = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** `#rgb` or `#rrggbb` only: the value is written into the connect pages' CSS, so nothing else may pass. */
export const isHexColour = (value: unknown): value is string => typeof value === 'string' && hexColour.test(value);

/**
 * How the customer's app appears on the connect pages: its name and accent colour. One schema
 * for a connect session's `branding` and an integration's, so both refuse the same values.
 */
export const brandingSchema = z
  .object({
    app_name: z.string().trim().min(1).max(80).optional(),
    accent_color: z.string().refine(isHexColour, 'must be a hex colour: #rgb or #rrggbb').optional(),
  })
  .strict();

export type Branding = z.output<typeof brandingSchema>;
