import type { Provider } from './schema.js';

/** A catalog entry as the API answers it (spec 2.1): `logo_url` always set, the `logo` hint kept inside. */
export type PublishedProvider = Omit<Provider, 'logo' | 'logo_url'> & { logo_url: string };

/** Where the gateway serves a provider's logo, under its public base URL (which includes any mount prefix). */
export const logoUrlOf = (baseUrl: string, name: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/providers/${encodeURIComponent(name)}/logo.svg`;

/** Spec 2.1 field order first; a custom entry's own `logo_url` wins over the gateway's route. */
export function publishProvider(provider: Provider, baseUrl: string): PublishedProvider {
  const { name, display_name, logo: _hint, logo_url, categories, auth_mode, ...rest } = provider;
  return { name, display_name, logo_url: logo_url ?? logoUrlOf(baseUrl, name), categories, auth_mode, ...rest };
}
