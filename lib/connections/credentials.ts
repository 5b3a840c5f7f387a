import { z } from 'zod';

const isoDate = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp');
const extra = z.record(z.string(), z.unknown()).optional();

export const oauth2Credentials = z
  .object({
    type: z.literal('OAUTH2'),
    access_token: z.string().min(1),
    refresh_token: z.string().min(1).optional(),
    expires_at: isoDate.optional(),
    token_type: z.string().optional(),
    scope: z.string().optional(),
    raw: extra,
  })
  .strict();

export const oauth2ClientCredentials = z
  .object({
    type: z.literal('OAUTH2_CC'),
    token: z.string().min(1).optional(),
    expires_at: isoDate.optional(),
    raw: extra,
  })
  .strict();

export const apiKeyCredentials = z
  .object({
    type: z.literal('API_KEY'),
    apiKey: z.string().min(1),
  })
  .strict();

export const basicCredentials = z
  .object({
    type: z.literal('BASIC'),
    username: z.string().min(1),
    password: z.string(),
  })
  .strict();

export const appCredentials = z
  .object({
    type: z.literal('APP'),
    installation_id: z
      .union([z.string().regex(/^\d+$/, 'must be digits'), z.number().int().positive()])
      .transform(String),
    /** The cached installation token (written by the gateway, not by callers). */
    access_token: z.string().min(1).optional(),
    expires_at: isoDate.optional(),
    /** Optional user authorization with expiring user tokens. */
    user_access_token: z.string().min(1).optional(),
    user_refresh_token: z.string().min(1).optional(),
    user_expires_at: isoDate.optional(),
  })
  .strict();

export const noneCredentials = z.object({ type: z.literal('NONE') }).strict();

export const connectionCredentialsSchema = z.discriminatedUnion('type', [
  oauth2Credentials,
  oauth2ClientCredentials,
  apiKeyCredentials,
  basicCredentials,
  appCredentials,
  noneCredentials,
]);

export type ConnectionCredentials = z.output<typeof connectionCredentialsSchema>;
export type OAuth2Credentials = z.output<typeof oauth2Credentials>;
export type AppCredentials = z.output<typeof appCredentials>;
