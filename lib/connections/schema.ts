import { z } from 'zod';
import { uniqueKey } from '../integrations/index.js';
import { connectionCredentialsSchema } from './credentials.js';

export const connectionId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@:|=+-]{0,254}$/, 'must be 1-255 characters: letters, digits and . _ @ : | = + -')
  .refine((id) => id !== 'metadata', '"metadata" is reserved');

export const endUserSchema = z
  .object({
    id: z.string().min(1).max(255),
    email: z.email().optional(),
    display_name: z.string().max(255).optional(),
    organization: z
      .object({ id: z.string().min(1).max(255), display_name: z.string().max(255).optional() })
      .strict()
      .optional(),
  })
  .strict();

/** Values that fill provider URL templates: kept to characters that cannot change a URL's meaning. */
export const connectionConfigSchema = z.record(
  z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/, 'config names are letters, digits and _'),
  z.union([z.string(), z.number(), z.boolean()]).transform(String).pipe(z.string().max(2048)),
);

const metadata = z.record(z.string(), z.unknown());

export const importConnectionSchema = z
  .object({
    provider_config_key: uniqueKey,
    connection_id: connectionId.optional(),
    credentials: connectionCredentialsSchema,
    end_user: endUserSchema.optional(),
    metadata: metadata.optional(),
    connection_config: connectionConfigSchema.optional(),
    /** API_KEY and BASIC: check the credentials against the catalog's verification endpoint before storing them. */
    verify: z.boolean().optional(),
  })
  .strict();

export const patchConnectionSchema = z
  .object({
    end_user: endUserSchema,
  })
  .strict();

export const metadataSchema = z
  .object({
    connection_id: z.union([connectionId, z.array(connectionId).min(1).max(100)]),
    provider_config_key: uniqueKey,
    metadata,
  })
  .strict();

export const listConnectionsQuery = z
  .object({
    provider_config_key: uniqueKey.optional(),
    end_user_id: z.string().min(1).optional(),
    search: z.string().min(1).max(255).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: z.string().optional(),
  })
  .strict();
