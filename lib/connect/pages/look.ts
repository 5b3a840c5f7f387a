import type { EndUser } from '../../connections/index.js';
import type { Provider } from '../../providers/index.js';
import type { Branding } from '../../integrations/index.js';
import { paletteOf, type Palette } from './colour.js';
import { messagesFor, pickLocale, type Messages } from './text/index.js';

/** How the customer's app presents itself (connect session, integration, gateway option); one schema checks them all. */
export type { Branding } from '../../integrations/index.js';

export interface ProviderFace {
  displayName: string;
  /** The gateway's own logo route: same origin as the page. */
  logoUrl: string;
  /** Where the provider explains its API keys (catalog `help_url`, else `docs`). */
  helpUrl: string | null;
}

/** Everything a page needs besides its own content: language, brand, provider, audience. */
export interface Look {
  text: Messages;
  /** The customer's app name, or the table's "the application". */
  appName: string;
  /** True when `appName` is the customer's (then it gets a brand tile). */
  named: boolean;
  palette: Palette;
  provider: ProviderFace | null;
  /** "Ada Lovelace · Acme": who the connection is for, never an internal id. */
  forWhom: string | null;
  /** Where a result or a cancellation may be posted: an allowed origin of the session, or none. */
  origin: string | null;
  providerConfigKey: string | null;
  /** The gateway's origin: the only place images load from. */
  assetOrigin: string;
}

export interface LookInput {
  baseUrl: string;
  branding: Branding | null | undefined;
  locale: string | null | undefined;
  acceptLanguage: string | undefined;
  provider?: Provider | undefined;
  endUser?: EndUser | null | undefined;
  origin: string | null;
  providerConfigKey?: string | null | undefined;
}

export const logoUrlFor = (baseUrl: string, provider: string) =>
  `${baseUrl.replace(/\/+$/, '')}/providers/${encodeURIComponent(provider)}/logo.svg`;

function forWhomOf(endUser: EndUser | null | undefined): string | null {
  if (!endUser) return null;
  const person = endUser.display_name?.trim() || endUser.email || null;
  const org = endUser.organization?.display_name?.trim() || null;
  return [person, org].filter(Boolean).join(' · ') || null;
}

export function lookOf(input: LookInput): Look {
  const text = messagesFor(pickLocale(input.locale, input.acceptLanguage));
  const name = input.branding?.app_name?.trim();
  const { provider } = input;
  return {
    text,
    appName: name || text.theApp,
    named: Boolean(name),
    palette: paletteOf(input.branding?.accent_color),
    provider: provider
      ? {
          displayName: provider.display_name,
          logoUrl: logoUrlFor(input.baseUrl, provider.name),
          helpUrl: provider.help_url ?? provider.docs ?? null,
        }
      : null,
    forWhom: forWhomOf(input.endUser),
    origin: input.origin,
    providerConfigKey: input.providerConfigKey ?? null,
    assetOrigin: new URL(input.baseUrl).origin,
  };
}
