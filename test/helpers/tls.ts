import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { dataDir } from './data-dir.js';

export interface SelfSigned {
  /** PEM files, for a server and for `NODE_EXTRA_CA_CERTS`. */
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

/**
 * A self-signed certificate for `localhost` and 127.0.0.1 (EC P-256, one day), made with the
 * machine's `openssl` in a folder the test removes: no key is kept in the repository.
 */
export function selfSignedLocalhost(t: Pick<Test, 'teardown'>): SelfSigned {
  const dir = dataDir(t);
  const certFile = join(dir, 'localhost.crt');
  const keyFile = join(dir, 'localhost.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
}
