import t from 'tap';
import { ConfigError, readConfig } from '../../adapters/standalone/config.js';

t.test('defaults: sqlite under ./data, port 3003, a generated development key', async (t) => {
  const config = readConfig({});
  t.equal(config.port, 3003);
  t.equal(config.storeUrl, 'sqlite://./data/portico.db');
  t.equal(config.baseUrl, 'http://localhost:3003');
  t.ok(config.secretKeyGenerated);
  t.match(config.secretKey, /^sk_dev_/);
  t.ok(Object.isFrozen(config));
});

t.test('every bad variable is listed at once', async (t) => {
  try {
    readConfig({ PORT: 'abc', SERVICE_ENCRYPTION_KEY: 'short', SERVICE_STORE_URL: 'mysql://x', SERVICE_BASE_URL: 'ftp://x', LOG_LEVEL: 'loud', SERVICE_SECRET_KEY: 'tiny' });
    t.fail('should throw');
  } catch (error) {
    t.ok(error instanceof ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'SERVICE_ENCRYPTION_KEY', 'SERVICE_STORE_URL', 'SERVICE_BASE_URL', 'LOG_LEVEL', 'SERVICE_SECRET_KEY']) {
      t.match(problems, name, `${name} is named`);
    }
  }
});

t.test('a Redis store needs an explicit encryption key', async (t) => {
  t.throws(() => readConfig({ SERVICE_STORE_URL: 'redis://127.0.0.1:6379' }), /SERVICE_ENCRYPTION_KEY/);
});

t.test('log level: SERVICE_LOG_LEVEL, the older LOG_LEVEL still read; SERVICE_LOG_FILE', async (t) => {
  t.equal(readConfig({}).logLevel, 'info');
  t.equal(readConfig({}).logFile, undefined, 'stdout by default');
  t.equal(readConfig({ SERVICE_LOG_LEVEL: 'warn' }).logLevel, 'warn');
  t.equal(readConfig({ LOG_LEVEL: 'error' }).logLevel, 'error', 'the older name works');
  t.equal(readConfig({ SERVICE_LOG_LEVEL: 'debug', LOG_LEVEL: 'error' }).logLevel, 'debug', 'the documented name wins');
  t.throws(() => readConfig({ SERVICE_LOG_LEVEL: 'loud' }), /SERVICE_LOG_LEVEL: "loud"/);
  t.equal(readConfig({ SERVICE_LOG_FILE: '/var/log/portico.log' }).logFile, '/var/log/portico.log');
});
