import { z } from 'zod';

/** Names that fill `${connection_config.NAME}` templates and connection config keys. */
const configName = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/);
const url = z.url({ protocol: /^https?$/ });
/** A URL that may hold `${connection_config.NAME}` placeholders. */
const templatedUrl = z.string().refine((value) => {
  try {
    new URL(value.replace(/\$\{connection_config\.[a-zA-Z0-9_]+\}/g, 'x'));
    return /^https?:\/\//.test(value);
  } catch {
    return false;
  }
}, 'must be an http(s) URL, optionally with ${connection_config.NAME} placeholders');

export const authModes = ['OAUTH2', 'OAUTH2_CC', 'API_KEY', 'BASIC', 'APP', 'NONE'] as const;
export type AuthMode = (typeof authModes)[number];

const cursorPaginate = z
  .object({
    type: z.literal('cursor'),
    cursor_path_in_response: z.string().min(1),
    cursor_name_in_request: z.string().min(1),
    limit_name_in_request: z.string().min(1).optional(),
    response_path: z.string().optional(),
    /** Where the cursor goes on the next request; GET query by default. */
    cursor_in: z.enum(['query', 'body']).optional(),
  })
  .strict();

const linkPaginate = z
  .object({
    type: z.literal('link'),
    /** `rel` of the `Link` response header that points to the next page (e.g. `next`). */
    link_rel_in_response_header: z.string().min(1).optional(),
    /** Dotted path to a next-page URL in the body (e.g. `@odata.nextLink`). */
    link_path_in_response_body: z.string().min(1).optional(),
    limit_name_in_request: z.string().min(1).optional(),
    response_path: z.string().optional(),
  })
  .strict()
  .refine((p) => Boolean(p.link_rel_in_response_header) !== Boolean(p.link_path_in_response_body), {
    message: 'link pagination names exactly one of link_rel_in_response_header and link_path_in_response_body',
  });

const offsetPaginate = z
  .object({
    type: z.literal('offset'),
    offset_name_in_request: z.string().min(1),
    limit_name_in_request: z.string().min(1).optional(),
    response_path: z.string().optional(),
    /** `item` counts items (offset += items), `page` counts pages (page += 1). Default `item`. */
    offset_calculation_method: z.enum(['item', 'page']).optional(),
    offset_start_value: z.number().int().nonnegative().optional(),
  })
  .strict();

export const paginateSchema = z.union([cursorPaginate, linkPaginate, offsetPaginate]);

/** Template variables a credential placement may use, per auth mode. */
export const placementVariables: Record<AuthMode, readonly string[]> = {
  API_KEY: ['apiKey'],
  BASIC: ['username', 'password', 'basic'],
  OAUTH2: ['accessToken'],
  OAUTH2_CC: ['accessToken'],
  APP: ['accessToken'],
  NONE: [],
};

/** Where a connection's credential goes on a proxied request. */
export const credentialPlacementSchema = z
  .object({
    in: z.enum(['header', 'query']),
    name: z.string().min(1),
    /**
     * Template: `${apiKey}` (API_KEY); `${username}`, `${password}`, `${basic}` = base64 user:pass
     * (BASIC); `${accessToken}` (OAUTH2, OAUTH2_CC, APP). Default: the mode's one credential
     * (`${apiKey}`, `${basic}` or `${accessToken}`).
     */
    value: z.string().min(1).optional(),
  })
  .strict();

export const proxySchema = z
  .object({
    base_url: templatedUrl,
    /** Static headers on every proxied call; values may hold `${connection_config.NAME}` (filled with the same safe-value rules as base_url). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Static query parameters on every proxied call; values may hold `${connection_config.NAME}`. */
    query: z.record(z.string(), z.string()).optional(),
    /** Decode gzip/deflate/br provider bodies for the caller (a request can override with `Decompress`). */
    decompress: z.boolean().optional(),
    paginate: paginateSchema.optional(),
    /** API_KEY/BASIC: where the credential goes. Default: `Authorization: Bearer ${apiKey}` / basic auth. */
    credentials: z.array(credentialPlacementSchema).min(1).optional(),
    /** Response headers that say when a rate limit resets (seconds or epoch seconds). */
    retry_after_headers: z.array(z.string()).optional(),
    /** A cheap authenticated GET that proves an API key works (path under base_url). */
    verification_endpoint: z.string().startsWith('/').optional(),
  })
  .strict();

/** A simple-icons slug (`googlecalendar`): also a file name in its icons folder, so nothing else. */
export const logoSlug = z
  .string()
  .regex(/^[a-z0-9_]{1,64}$/, 'must be a simple-icons slug (lower-case letters, digits, _)');

/**
 * A catalog entry as written (spec 2.1 without `logo_url`, which the gateway derives). Only what
 * the proxy needs is required: `name`, `auth_mode`, `proxy.base_url` and the URLs the auth mode
 * needs; display name, categories, docs and logo default (a custom provider can be four lines).
 */
export const providerSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and dashes'),
    /** Default: the name. */
    display_name: z.string().min(1).optional(),
    /**
     * simple-icons slug when the brand's slug is not the name (or the name without dashes); `false`
     * when a simple-icons brand of the same name is another company (the monogram is used).
     */
    logo: z.union([logoSlug, z.literal(false)]).optional(),
    /** A logo hosted elsewhere, published as `logo_url` instead of the gateway's own logo route. */
    logo_url: url.optional(),
    /** Default: `["other"]`. */
    categories: z.array(z.string().min(1)).min(1).optional(),
    auth_mode: z.enum(authModes),
    authorization_url: templatedUrl.optional(),
    token_url: templatedUrl.optional(),
    /** Extra query parameters on the authorization URL (e.g. `access_type=offline`). */
    authorization_params: z.record(z.string(), z.string()).optional(),
    /** Extra form fields on the token request. */
    token_params: z.record(z.string(), z.string()).optional(),
    /** How the client authenticates at the token URL: form body (default) or HTTP basic. */
    token_request_auth: z.enum(['body', 'basic']).optional(),
    scope_separator: z.string().optional(),
    default_scopes: z.array(z.string()).optional(),
    pkce: z.boolean().optional(),
    /** APP providers: the installation URL template; `${app_link}` is the integration's public link. */
    installation_url: z.string().optional(),
    /**
     * Admin consent page for providers whose application permissions only an organization
     * administrator can grant (OAUTH2_CC): the connect flow sends the administrator there.
     */
    admin_consent_url: templatedUrl.optional(),
    /**
     * Admin consent without a tenant pinned by the customer: the consenting organization is proven
     * by the OpenID ID token of an authorization code round (`prompt=admin_consent`), verified
     * against the issuer's published keys. `issuer` may hold `{tenantid}` (multi-tenant issuers).
     */
    id_token: z
      .object({ jwks_uri: url, issuer: z.string().min(1), tenant_claim: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** APP providers: the optional user authorization of the app (spec 5.1.4), separate from installation tokens. */
    user_authorization: z.object({ authorization_url: url, token_url: url }).strict().optional(),
    /** Token-response fields copied into the connection config on authorization (`part: host` keeps only a URL's host). */
    token_response_config: z
      .record(configName, z.object({ from: z.string().min(1), part: z.enum(['value', 'host']).optional() }).strict())
      .optional(),
    connection_configuration: z.array(configName).optional(),
    connection_config_defaults: z.record(z.string(), z.string()).optional(),
    post_connection_script: z.string().min(1).optional(),
    webhook_routing_script: z.string().min(1).optional(),
    proxy: proxySchema,
    /** The provider's documentation page this entry was checked against (required in the built-in catalog). */
    docs: url.optional(),
    /** The provider's page that tells an end user where to find an API key (the connect form links it; `docs` otherwise). */
    help_url: url.optional(),
    /** Free-form notes shown to the customer (e.g. admin consent requirements). */
    notes: z.string().optional(),
  })
  .strict()
  .transform((p) => ({ ...p, display_name: p.display_name ?? p.name, categories: p.categories ?? ['other'] }))
  .superRefine((p, ctx) => {
    const oauth = p.auth_mode === 'OAUTH2';
    if (oauth && (!p.authorization_url || !p.token_url)) {
      ctx.addIssue({ code: 'custom', message: 'OAUTH2 providers need authorization_url and token_url' });
    }
    if (p.auth_mode === 'OAUTH2_CC' && !p.token_url) {
      ctx.addIssue({ code: 'custom', message: 'OAUTH2_CC providers need token_url' });
    }
    const allowed = placementVariables[p.auth_mode];
    for (const placement of p.proxy.credentials ?? []) {
      for (const [, name] of (placement.value ?? '').matchAll(/\$\{([^}]*)\}/g)) {
        if (!allowed.includes(name as string)) {
          ctx.addIssue({
            code: 'custom',
            path: ['proxy', 'credentials'],
            message: `\${${name}} is not available in auth mode ${p.auth_mode} (use ${allowed.map((v) => `\${${v}}`).join(', ') || 'nothing'})`,
          });
        }
      }
    }
    const placeholders = [
      p.proxy.base_url,
      p.authorization_url ?? '',
      p.token_url ?? '',
      p.admin_consent_url ?? '',
      ...Object.values(p.token_params ?? {}),
      ...Object.values(p.proxy.headers ?? {}),
      ...Object.values(p.proxy.query ?? {}),
    ].flatMap((s) => [...s.matchAll(/\$\{connection_config\.([a-zA-Z0-9_]+)\}/g)].map((m) => m[1]));
    for (const name of placeholders) {
      if (!p.connection_configuration?.includes(name as string)) {
        ctx.addIssue({
          code: 'custom',
          message: `placeholder connection_config.${name} is not in connection_configuration`,
        });
      }
    }
  });

export type Provider = z.output<typeof providerSchema>;
export type Paginate = z.infer<typeof paginateSchema>;
export type CredentialPlacement = z.infer<typeof credentialPlacementSchema>;
