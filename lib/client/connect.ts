import type { z } from 'zod';
import type { createSessionSchema } from '../connect/index.js';
import type { Http } from './http.js';
import type { EndUser } from './types.js';

/** `POST /connect/sessions`: the gateway's own schema's input. */
export type ConnectSessionInput = z.input<typeof createSessionSchema>;

export interface ConnectSession {
  /** Short-lived and single-use: hand it to the frontend SDK, or send the end user to `connect_link`. */
  token: string;
  connect_link: string;
  expires_at: string;
  end_user: EndUser;
  /** Null: every integration of the environment. */
  allowed_integrations: string[] | null;
  /** Where the result page may post its message; empty: nowhere. */
  allowed_origins: string[];
  /** Admin consent: the tenant the backend pinned. */
  tenant?: string;
}

/** Connect sessions: how an end user authorizes a new connection (or re-authorizes one). */
export function createConnectApi(http: Http) {
  return {
    async createConnectSession(input: ConnectSessionInput): Promise<ConnectSession> {
      return (await http.json<{ data: ConnectSession }>('POST', '/connect/sessions', { body: input })).body.data;
    },
  };
}
