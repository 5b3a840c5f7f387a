import type { Context } from 'koa';
import type { EndUser } from '../connections/index.js';
import type { FlowDeps } from './deps.js';
import { lookOf, type Branding, type Look } from './pages/look.js';

/** What a page knows about the attempt it belongs to, from the session or the flow. */
export interface LookParts {
  branding?: Branding | null | undefined;
  locale?: string | null | undefined;
  /** Catalog name of the provider, when known. */
  provider?: string | undefined;
  endUser?: EndUser | null | undefined;
  providerConfigKey?: string | null | undefined;
}

const definedFields = (branding: Branding | null | undefined): Branding =>
  Object.fromEntries(Object.entries(branding ?? {}).filter(([, value]) => value !== undefined && value !== null));

/**
 * The brand an attempt's pages show: the session's fields over the integration's (the gateway's
 * `connectBranding` and the defaults fill the rest when the page is drawn).
 */
export const brandingOf = (
  session: Branding | null | undefined,
  integration: Branding | null | undefined,
): Branding | null => {
  const merged = { ...definedFields(integration), ...definedFields(session) };
  return Object.keys(merged).length > 0 ? merged : null;
};

/** The page's presentation: the customer's brand, the end user's language, the provider's face. */
export function lookFor(
  deps: Pick<FlowDeps, 'baseUrl' | 'catalog' | 'defaultBranding'>,
  ctx: Context,
  parts: LookParts,
  origin: string | null,
): Look {
  return lookOf({
    baseUrl: deps.baseUrl,
    // The session's (or integration's) fields win; the gateway's `connectBranding` fills the rest.
    branding: { ...deps.defaultBranding, ...definedFields(parts.branding) },
    locale: parts.locale,
    acceptLanguage: ctx.get('accept-language') || undefined,
    provider: parts.provider ? deps.catalog.get(parts.provider) : undefined,
    endUser: parts.endUser,
    origin,
    providerConfigKey: parts.providerConfigKey,
  });
}
