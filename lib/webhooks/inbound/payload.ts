import { fail } from '../../errors.js';

/**
 * A provider webhook body as data: JSON as is; a form post's `payload` field (the code-hosting
 * provider's form content type) parsed as JSON; anything else as its text.
 */
export function parseProviderPayload(raw: Buffer, contentType: string): unknown {
  const text = raw.toString('utf8');
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  try {
    if (type === 'application/json' || type.endsWith('+json')) return JSON.parse(text);
    if (type === 'application/x-www-form-urlencoded') {
      const payload = new URLSearchParams(text).get('payload');
      if (payload !== null) return JSON.parse(payload);
    }
  } catch {
    fail('invalid_json', 'The webhook body is not valid JSON.');
  }
  return text;
}
