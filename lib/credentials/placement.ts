import { fail } from '../errors.js';
import type { CredentialPlacement, Provider } from '../providers/index.js';
import type { AuthMaterial } from './resolver.js';

/** The values a placement template may use, per auth mode. */
export interface PlacementValues {
  apiKey?: string;
  username?: string;
  password?: string;
  basic?: string;
  accessToken?: string;
}

const bearerToken: CredentialPlacement[] = [{ in: 'header', name: 'Authorization', value: 'Bearer ${accessToken}' }];

/** Where each mode's credential goes when the catalog entry does not say. */
const defaults: Record<string, CredentialPlacement[]> = {
  API_KEY: [{ in: 'header', name: 'Authorization', value: 'Bearer ${apiKey}' }],
  BASIC: [{ in: 'header', name: 'Authorization', value: 'Basic ${basic}' }],
  OAUTH2: bearerToken,
  OAUTH2_CC: bearerToken,
  APP: bearerToken,
};

/** The value of a placement that names no template: the mode's one credential. */
const defaultTemplate: Record<string, string> = {
  API_KEY: '${apiKey}',
  BASIC: '${basic}',
  OAUTH2: '${accessToken}',
  OAUTH2_CC: '${accessToken}',
  APP: '${accessToken}',
};

const variable = /\$\{([a-zA-Z]+)\}/g;
// Header values travel as-is; a control character would end the header (request splitting).
const unsafeHeaderValue = /[^\t\x20-\x7e\x80-\xff]/;

/** Fills each placement's template and puts the result in a header or a query parameter. */
export function placeCredentials(provider: Provider, values: PlacementValues): AuthMaterial {
  const placements = provider.proxy.credentials ?? defaults[provider.auth_mode] ?? [];
  const material: AuthMaterial = { headers: {}, query: {} };
  for (const placement of placements) {
    const template = placement.value ?? defaultTemplate[provider.auth_mode] ?? '${apiKey}';
    const value = template.replace(variable, (whole, name: string) => {
      const filled = values[name as keyof PlacementValues];
      // The catalog schema checks templates per mode, so this is a programming error.
      if (filled === undefined)
        throw new Error(`provider ${provider.name}: ${whole} has no value in auth mode ${provider.auth_mode}`);
      return filled;
    });
    if (placement.in === 'header') {
      if (unsafeHeaderValue.test(value)) {
        fail(
          'invalid_credentials',
          `The credentials of this connection hold characters that cannot be sent in the ${placement.name} header. Import the connection again with clean credentials.`,
        );
      }
      material.headers[placement.name] = value;
    } else {
      material.query[placement.name] = value;
    }
  }
  return material;
}
