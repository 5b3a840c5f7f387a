import { z } from 'zod';
import { connectionConfigSchema, connectionId, endUserSchema } from '../../connections/index.js';
import type { EndUser } from '../../connections/index.js';
import { brandingSchema, uniqueKey, type Branding } from '../../integrations/index.js';
import { locales } from '../pages/text/index.js';
import { isSafeConfigValue, safeConfigValueRule } from '../../providers/protocol/index.js';

/** An http(s) origin such as `https://app.example.com` (no path): where results are posted. */
export const originSchema = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
    } catch {
      return false;
    }
  }, 'must be an origin like https://app.example.com (scheme, host and port only)');

const sharedTenants = new Set(['common', 'organizations', 'consumers']);

/** A concrete tenant (id or verified domain); the multi-tenant aliases name no organization. */
export const tenantSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,253}$/, 'must be a tenant id or domain')
  .refine(
    (value) => !sharedTenants.has(value.toLowerCase()),
    'must name one tenant (common, organizations and consumers name none)',
  );

/** True for a tenant value that names one organization (not a multi-tenant alias). */
export const isConcreteTenant = (value: string | undefined): value is string =>
  value !== undefined && tenantSchema.safeParse(value).success;

const organizationSchema = z
  .object({
    id: z.string().min(1).max(255),
    display_name: z.string().max(255).optional(),
  })
  .strict();

/** Body of `POST /connect/sessions`. */
export const createSessionSchema = z
  .object({
    end_user: endUserSchema.omit({ organization: true }),
    organization: organizationSchema.optional(),
    /** Integrations (unique keys) the end user may connect; all of the environment's when absent. */
    allowed_integrations: z.array(uniqueKey).min(1).max(100).optional(),
    /** Per integration: connection config the customer fixes (e.g. a Microsoft tenant). */
    integrations_config_defaults: z
      .record(
        uniqueKey,
        z
          .object({
            // The values fill provider URLs: the same rules as every other filler (lib/providers/protocol).
            connection_config: connectionConfigSchema.pipe(
              z.record(z.string(), z.string().refine(isSafeConfigValue, `may hold only ${safeConfigValueRule}`)),
            ),
          })
          .strict(),
      )
      .optional(),
    /** The origins of the pages that open the connect link; results are posted to them only, never to one a link names. */
    allowed_origins: z.array(originSchema).min(1).max(20).optional(),
    /** One allowed origin (shorthand for `allowed_origins: [origin]`). */
    origin: originSchema.optional(),
    /**
     * The organization's tenant for admin consent, pinned by the customer: a concrete tenant id or
     * domain. Without it the tenant must be proven by the provider's signed ID token.
     */
    tenant: tenantSchema.optional(),
    branding: brandingSchema.optional(),
    /** The connect pages' language (a shipped one; otherwise the browser's, else English). */
    locale: z
      .string()
      .refine((value) => Object.hasOwn(locales, value), `must be one of: ${Object.keys(locales).join(', ')}`)
      .optional(),
    /** Re-authorize this existing connection instead of creating a new one (one integration only). */
    connection_id: connectionId.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.connection_id !== undefined && body.allowed_integrations?.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['allowed_integrations'],
        message: 'must name exactly one integration when connection_id is given',
      });
    }
  });

export type CreateSessionInput = z.output<typeof createSessionSchema>;

/** What a connect session stores (under the hash of its token, never the token itself). */
export interface ConnectSession {
  environment: string;
  end_user: EndUser;
  allowed_integrations: string[] | null;
  integrations_config_defaults: Record<string, Record<string, string>>;
  /** Where results may be posted; empty: nowhere. */
  allowed_origins: string[];
  tenant: string | null;
  connection_id: string | null;
  /** Absent on sessions stored before the connect pages were branded. */
  branding?: Branding | null;
  locale?: string | null;
  created_at: string;
  expires_at: string;
}

/** The end user a connection gets: its own copy (spec 2.4), organization folded in. */
export function endUserOf(input: CreateSessionInput): EndUser {
  return {
    ...input.end_user,
    ...(input.organization ? { organization: { ...input.organization } } : {}),
  };
}
