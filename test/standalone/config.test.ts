import t from 'tap';
import { ConfigError, readConfig } from '../../adapters/standalone/config.js';

const problemsOf = (env: NodeJS.ProcessEnv): string => {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  return '';
};

t.test('defaults: sqlite under ./data, port 3003, one environment "dev" without a configured key', async (t) => {
  const config = readConfig({});
  t.equal(config.port, 3003);
  t.equal(config.host, '127.0.0.1');
  t.equal(config.storeUrl, 'sqlite://./data/portico.db');
  t.equal(config.baseUrl, undefined, 'the server uses http://localhost:<port>');
  t.match(config.environments, [{ name: 'dev', secretKey: undefined }]);
  t.equal(config.environments.length, 1);
  t.equal(config.metricsToken, undefined);
  t.ok(Object.isFrozen(config));
});

t.test('every bad variable is listed at once', async (t) => {
  const problems = problemsOf({
    SERVICE_PORT: 'abc',
    SERVICE_ENCRYPTION_KEY: 'short',
    SERVICE_STORE_URL: 'mysql://x',
    SERVICE_BASE_URL: 'ftp://x',
    SERVICE_LOG_LEVEL: 'loud',
    SERVICE_SECRET_KEY: 'tiny',
    SERVICE_METRICS_TOKEN: 'short',
  });
  for (const name of [
    'SERVICE_PORT',
    'SERVICE_ENCRYPTION_KEY',
    'SERVICE_STORE_URL',
    'SERVICE_BASE_URL',
    'SERVICE_LOG_LEVEL',
    'SERVICE_SECRET_KEY',
    'SERVICE_METRICS_TOKEN',
  ]) {
    t.match(problems, name, `${name} is named`);
  }
});

t.test('SERVICE_PORT, SERVICE_HOST and SERVICE_LOG_LEVEL; PORT, HOST and LOG_LEVEL as fallbacks', async (t) => {
  t.match(
    readConfig({
      SERVICE_PORT: '4000',
      SERVICE_HOST: '0.0.0.0',
      SERVICE_LOG_LEVEL: 'warn',
      PORT: '5000',
      HOST: '::1',
      LOG_LEVEL: 'debug',
    }),
    { port: 4000, host: '0.0.0.0', logLevel: 'warn' },
  );
  t.match(readConfig({ PORT: '5000', HOST: '::1', LOG_LEVEL: 'debug' }), {
    port: 5000,
    host: '::1',
    logLevel: 'debug',
  });
  t.match(problemsOf({ PORT: 'x' }), /^PORT: "x"/, 'the problem names the variable that was read');
});

t.test('several environments, each with its own key and webhook settings', async (t) => {
  const config = readConfig({
    SERVICE_ENVIRONMENTS: 'dev, prod',
    SERVICE_SECRET_KEY_DEV: 'sk_dev_0123456789abcdef',
    SERVICE_SECRET_KEY_PROD: 'sk_prod_0123456789abcdef',
    SERVICE_WEBHOOK_URL: 'https://app.example/hooks',
    SERVICE_WEBHOOK_URL_PROD: 'https://prod.example/hooks',
    SERVICE_LOGGER_LEVEL_DEV: 'debug',
  });
  t.match(config.environments, [
    {
      name: 'dev',
      secretKey: 'sk_dev_0123456789abcdef',
      webhookUrl: 'https://app.example/hooks',
      scriptLogLevel: 'debug',
    },
    {
      name: 'prod',
      secretKey: 'sk_prod_0123456789abcdef',
      webhookUrl: 'https://prod.example/hooks',
      scriptLogLevel: undefined,
    },
  ]);
});

t.test('SERVICE_SECRET_KEY is for one environment: with several it is named as a mistake', async (t) => {
  t.match(readConfig({ SERVICE_SECRET_KEY: 'sk_single_0123456789' }).environments, [
    { name: 'dev', secretKey: 'sk_single_0123456789' },
  ]);
  t.match(
    readConfig({ SERVICE_ENVIRONMENTS: 'staging', SERVICE_SECRET_KEY_STAGING: 'sk_staging_0123456789' }).environments,
    [{ name: 'staging', secretKey: 'sk_staging_0123456789' }],
  );
  t.match(
    problemsOf({ SERVICE_ENVIRONMENTS: 'dev,prod', SERVICE_SECRET_KEY: 'sk_single_0123456789' }),
    /SERVICE_SECRET_KEY: with several environments \(dev, prod\) set SERVICE_SECRET_KEY_DEV, SERVICE_SECRET_KEY_PROD instead/,
  );
  t.match(
    problemsOf({ SERVICE_ENVIRONMENTS: 'dev,Prod!,dev' }),
    /"Prod!" must be lower-case[\s\S]*names an environment twice/,
  );
  t.match(
    problemsOf({ SERVICE_ENVIRONMENTS: 'dev,prod', SERVICE_SECRET_KEY_PROD: 'short' }),
    /SERVICE_SECRET_KEY_PROD: must be at least 16 characters/,
  );
});

t.test('a Redis store needs an explicit encryption key and every secret key', async (t) => {
  const problems = problemsOf({
    SERVICE_STORE_URL: 'redis://127.0.0.1:6379',
    SERVICE_ENVIRONMENTS: 'dev,prod',
    SERVICE_SECRET_KEY_DEV: 'sk_dev_0123456789abcdef',
  });
  t.match(problems, /SERVICE_ENCRYPTION_KEY/);
  t.match(problems, /SERVICE_SECRET_KEY_PROD: required with a Redis store/);
  t.notMatch(problems, /SERVICE_SECRET_KEY_DEV/);
});

t.test(
  'a PostgreSQL store is accepted, shared like Redis; a bad store URL is named without its password',
  async (t) => {
    const problems = problemsOf({ SERVICE_STORE_URL: 'postgresql://gw:pw@127.0.0.1:5432/portico' });
    t.match(problems, /SERVICE_ENCRYPTION_KEY: required with a PostgreSQL store/);
    t.match(problems, /SERVICE_SECRET_KEY: required with a PostgreSQL store/);
    t.notMatch(problems, /SERVICE_STORE_URL/, 'the URL itself is accepted');
    const bad = problemsOf({ SERVICE_STORE_URL: 'mysql://gw:hunter2@db/portico' });
    t.match(bad, /SERVICE_STORE_URL: "mysql:\/\/gw:\*\*\*@db\/portico" must be .*postgres:\/\//);
    t.notMatch(bad, /hunter2/);
  },
);

t.test("SERVICE_METRICS_PORT must be a port other than the gateway's", async (t) => {
  t.equal(readConfig({ SERVICE_METRICS_PORT: '9464' }).metricsPort, 9464);
  t.match(problemsOf({ SERVICE_PORT: '4000', SERVICE_METRICS_PORT: '4000' }), /SERVICE_METRICS_PORT: must differ/);
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

t.test('SERVICE_HEAP_GROWING_PERCENT: 300 by default, 0 leaves V8 its own, anything else is named', async (t) => {
  t.equal(readConfig({}).heapGrowingPercent, 300, 'four times the survivors of each full collection');
  t.equal(readConfig({ SERVICE_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent, 0);
  t.equal(readConfig({ SERVICE_HEAP_GROWING_PERCENT: '150' }).heapGrowingPercent, 150);
  for (const bad of ['-1', '1.5', 'lots', '1001'])
    t.throws(
      () => readConfig({ SERVICE_HEAP_GROWING_PERCENT: bad }),
      new RegExp(`SERVICE_HEAP_GROWING_PERCENT: "${bad.replace('.', '\\.')}" must be a whole number from 0`),
    );
});
