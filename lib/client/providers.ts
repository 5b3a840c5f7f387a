import type { Http } from './http.js';
import type { Provider } from './types.js';

/** The provider catalog (spec 4.1, 4.2). */
export function createProvidersApi(http: Http) {
  return {
    async listProviders(): Promise<Provider[]> {
      return (await http.json<{ data: Provider[] }>('GET', '/providers')).body.data;
    },
    async getProvider(name: string): Promise<Provider> {
      return (await http.json<{ data: Provider }>('GET', `/providers/${encodeURIComponent(name)}`)).body.data;
    },
  };
}
