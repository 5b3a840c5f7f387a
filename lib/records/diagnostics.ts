import { channel } from 'node:diagnostics_channel';

/**
 * `portico:records:written` on `node:diagnostics_channel`: a batch changed stored records
 * (`added` + `updated` for a save, `deleted` for a deletion). Unchanged records are not counted.
 */
export const recordChannels = {
  written: channel('portico:records:written'),
};

export interface RecordsWrittenEvent {
  environment: string;
  providerConfigKey: string;
  model: string;
  added: number;
  updated: number;
  deleted: number;
}
