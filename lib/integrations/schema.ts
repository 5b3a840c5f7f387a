import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { brandingSchema } from './branding.js';
import { defaultScopeConflict, normalizeScopes } from './scopes.js';

const scopes = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => normalizeScopes(v))
  .superRefine((list, ctx) => {
    const conflict = defaultScopeConflict(list);
    if (conflict) ctx.addIssue({ code: 'custom', message: conflict });
  });

const secret = z.string().min(1).max(4096);

const pem = z
  .string()
  .max(16_384)
  .refine((value) => {
    try {
      return createPrivateKey(value).asymmetricKeyType === 'rsa';
    } catch {
      return false;
    }
  }, 'must be the RSA private key (PEM) downloaded from the app settings');

export const oauthClientSchema = z
  .object({
    type: z.enum(['OAUTH2', 'OAUTH2_CC']),
    client_id: z.string().min(1).max(1024),
    client_secret: secret,
    scopes,
    webhook_secret: secret.optional(),
  })
  .strict();

export const appSchema = z
  .object({
    type: z.literal('APP'),
    app_id: z.string().regex(/^\d{1,20}$/, 'must be digits only'),
    app_link: z.url({ protocol: /^https?$/ }),
    private_key: pem,
    webhook_secret: secret.optional(),
    /** Optional user authorization (expiring user tokens) needs the app's OAuth client. */
    client_id: z.string().min(1).max(1024).optional(),
    client_secret: secret.optional(),
    /**
     * Opt-out of the user authorization that proves an installation belongs to the person
     * installing it: the setup URL's installation id is trusted once it is checked to be this
     * app's. Anyone holding a connect link can then claim any installation of the app.
     */
    insecure_trust_setup_url_installation_id: z.literal(true).optional(),
  })
  .strict();

export const integrationCredentialsSchema = z.discriminatedUnion('type', [oauthClientSchema, appSchema]);
export type IntegrationCredentials = z.output<typeof integrationCredentialsSchema>;

export const uniqueKey = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,99}$/, 'must be 1-100 letters, digits, "_", "-" or "."');

export const createIntegrationSchema = z
  .object({
    unique_key: uniqueKey,
    provider: z.string().min(1),
    display_name: z.string().min(1).max(200).optional(),
    credentials: integrationCredentialsSchema.optional(),
    /** The app name and accent colour on this integration's connect pages (a session's `branding` wins field by field). */
    branding: brandingSchema.optional(),
  })
  .strict();

export const updateIntegrationSchema = z
  .object({
    display_name: z.string().min(1).max(200).optional(),
    credentials: integrationCredentialsSchema.nullable().optional(),
    /** Replaces the integration's branding as a whole; null removes it. */
    branding: brandingSchema.nullable().optional(),
  })
  .strict();
