import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import { createConnect, createHookRegistry, verifyCredentials } from './connect/index.js';
import { createConnectionRoutes, createConnectionService, createRemovedConnectionRoutes } from './connections/index.js';
import { createCipher, parseEncryptionKeys } from './crypto/index.js';
import { createCredentialResolver } from './credentials/index.js';
import { resealAll, type ResealProgress } from './keys/index.js';
import {
  createAuthenticate,
  createKeyMatcher,
  createSecretKeyAuth,
  validateEnvironments,
} from './environments/index.js';
import { closeParts, type Closer } from './close-parts.js';
import { fail } from './errors.js';
import { createEventBus } from './events/index.js';
import type { GatewayOptions } from './gateway-options.js';
import { createHealthRoutes, createReadiness, queueCheck, storeCheck } from './health/index.js';
import { createLogger } from './http/logger.js';
import type { HttpContext } from './http/context.js';
import { createEdge } from './http/edge.js';
import { createLane } from './http/lane.js';
import { createRequestIds } from './http/request-id.js';
import type { RouteSpec } from './http/route-spec.js';
import { routeTable } from './http/route-table.js';
import { createIntegrationRoutes, createIntegrationService } from './integrations/index.js';
import { createOpenApiRoutes } from './openapi/index.js';
import {
  createBrandIcons,
  createCatalog,
  createLogoRoutes,
  createLogos,
  createProviderRoutes,
} from './providers/index.js';
import { createProxy } from './proxy/index.js';
import { createRecordRoutes, createRecordStore } from './records/index.js';
import { createGatewayHost, createScriptHooks, createScripts } from './scripts/index.js';
import { defaultStoreTimeoutMs, guardStorage, logStoreFailures, observeStorage } from './storage/index.js';
import { createMetrics, createMetricsRoutes, createTracing } from './telemetry/index.js';
import { createWebhooks } from './webhooks/index.js';

export type { GatewayOptions } from './gateway-options.js';
export type { RouteInfo } from './http/route-table.js';

/** Gateway return value: the stack to mount, the services behind it, and how to stop it. */
export type Gateway = Awaited<ReturnType<typeof createGateway>>;

/**
 * The composition root: options → cipher, catalog, services → routes → one Koa middleware stack.
 * Mount `gateway.middleware` under any prefix (koa-mount), or `gateway.callback()` in any
 * Node http server or Express app.
 */
export async function createGateway(options: GatewayOptions) {
  const problems = validateEnvironments(options.environments);
  if (options.metrics?.token !== undefined && options.metrics.token.length < 16)
    problems.push('metrics.token: must be at least 16 characters');
  if (problems.length > 0) throw new Error(`invalid gateway options:\n  ${problems.join('\n  ')}`);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const logger = options.logger ?? createLogger();
  // Every store command bounded in time; a failing store answers 503 store_unavailable (lib/storage/guard.ts).
  // Store failures also become countable (portico:storage:error); callers still see each one.
  const storage = guardStorage(observeStorage(options.storage), {
    timeoutMs: options.storeTimeoutMs ?? defaultStoreTimeoutMs,
    onFailure: logStoreFailures((message, fields) => logger.warn(message, fields)),
  });
  const readiness = createReadiness();
  readiness.register('store', storeCheck(storage));
  const cacheTtlMs = options.cacheTtlMs ?? 5_000;
  const encryptionKeys =
    typeof options.encryptionKeys === 'string' ? parseEncryptionKeys(options.encryptionKeys) : options.encryptionKeys;
  const cipher = createCipher(encryptionKeys);
  const catalog = createCatalog(options.providers ?? []);
  const events = createEventBus((error, event) =>
    logger.error('event subscriber failed', {
      event: event.type,
      error: error instanceof Error ? error.message : String(error),
    }),
  );

  const integrations = createIntegrationService({ storage, cipher, catalog, cacheTtlMs });
  const connections = createConnectionService({ storage, cipher, catalog, integrations, events, cacheTtlMs });
  // A store written by an older version: its per-environment id arrays move into the ordered indexes.
  await integrations.upgrade();
  await connections.upgrade(options.environments.map((e) => e.name));
  const urls = {
    callbackUrl: `${baseUrl}/oauth/callback`,
    setupUrl: `${baseUrl}/oauth/app-setup`,
    webhookUrl: (env: string, key: string) => `${baseUrl}/webhook/${env}/${key}`,
  };

  // Every route, declared once by its feature (method, path, auth, schema, summary, handler): the
  // routers, the public/protected split, `routes()` and the OpenAPI document all come from here.
  const routeGroups: RouteSpec[][] = [
    createOpenApiRoutes(() => routeGroups.flat(), baseUrl),
    createHealthRoutes(readiness),
    createLogoRoutes(catalog, createLogos(createBrandIcons())),
    createProviderRoutes(catalog, baseUrl),
    createIntegrationRoutes({
      integrations,
      urls,
      deleteConnectionsOf: (env, key) => connections.deleteAllOf(env, key),
    }),
    createConnectionRoutes(connections, async (env, input) => {
      // `"verify": true` on import: the same check as the API key form, at the catalog's verification endpoint.
      const integration = await integrations.require(env, input.provider_config_key);
      const provider = catalog.get(integration.provider);
      if (!provider?.proxy.verification_endpoint) {
        fail(
          'invalid_request',
          `verify: provider ${integration.provider} has no verification endpoint in the catalog; import without "verify".`,
          { field: 'verify' },
        );
      }
      if (input.credentials.type === 'API_KEY' || input.credentials.type === 'BASIC') {
        await verifyCredentials(
          (url, init) => globalThis.fetch(url, init),
          provider,
          input.connection_config ?? {},
          input.credentials,
        );
      }
    }),
    createRemovedConnectionRoutes(),
  ];
  const closers: Closer[] = [];
  const deadlines = { partMs: options.closeTimeoutMs, totalMs: options.closeDeadlineMs };
  /**
   * One step of building the gateway: if it fails, what the steps before it started (queues and
   * their connections, workers, timers) is stopped before the error reaches the caller, so a
   * gateway that could not be made leaves nothing running behind it.
   */
  const step = async <T>(make: () => T | Promise<T>): Promise<T> => {
    try {
      return await make();
    } catch (error) {
      await closeParts(closers, logger, deadlines);
      throw error;
    }
  };
  // Telemetry (lib/telemetry): listens to the features' diagnostics events; nothing listens when off.
  const metrics = options.metrics
    ? createMetrics(
        options.environments.map((e) => e.name),
        options.metrics,
      )
    : undefined;
  if (metrics) closers.push({ name: 'metrics', close: async () => metrics.close() });
  if (metrics && options.metrics?.token) routeGroups.push(createMetricsRoutes(metrics, options.metrics.token));
  const tracing = options.tracing === false ? undefined : createTracing(options.tracing);
  if (tracing) closers.push({ name: 'tracing', close: async () => tracing.close() });
  // Webhooks (lib/webhooks): signed, durable delivery to the customer; provider webhooks in.
  const webhooks = await step(() =>
    createWebhooks({
      storage,
      cipher,
      catalog,
      integrations,
      connections,
      events,
      logger,
      environments: options.environments,
      cacheTtlMs,
      options: options.webhooks,
    }),
  );
  routeGroups.push(webhooks.inboundRoutes, webhooks.routes);
  closers.push({ name: 'webhooks', close: () => webhooks.close() });
  readiness.register('webhooks', queueCheck('webhooks', webhooks.api.queueCounts));
  metrics?.readWebhookBacklogFrom(webhooks.api.queueCounts);
  // Synced records (lib/records): the store scripts write to, and GET /records.
  const records = createRecordStore({
    storage,
    onError: (error, context) =>
      logger.error('records background task failed', {
        ...context,
        error: error instanceof Error ? error.message : String(error),
      }),
  });
  routeGroups.push(
    createRecordRoutes({ records, requireConnection: (env, key, id) => connections.require(env, key, id) }),
  );
  // A deleted connection takes its records with it (a re-created one must not inherit them).
  events.subscribe(async (event) => {
    if (event.type === 'connection.deleted')
      await records.dropConnection(event.environment, event.provider_config_key, event.connection_id);
  });
  closers.push({ name: 'records', close: () => records.close() });
  // The proxy (lib/proxy): /proxy/{provider_path} and `gateway.proxy.request`, credentials by lib/credentials.
  const credentialResolver = createCredentialResolver({ connections, coordinator: storage.coordinator, logger });
  const proxy = createProxy({
    catalog,
    integrations,
    connections,
    resolver: credentialResolver,
    logger,
    options: options.proxy,
  });
  // First in line: the hot path should not walk every other router's routes to get there.
  routeGroups.unshift(proxy.specs);
  closers.push({ name: 'proxy', close: () => proxy.close() });
  // Scripts (lib/scripts): syncs and actions in script processes, on schedule or on demand, with logs.
  const scripts = await step(() =>
    createScripts({
      storage,
      connections,
      catalog,
      events,
      logger,
      environments: options.environments,
      baseUrl,
      cacheTtlMs,
      options: options.scripts,
      host: createGatewayHost({ records, proxy: { request: proxy.request }, webhooks: webhooks.api }),
    }),
  );
  routeGroups.push(scripts.routes);
  closers.push({ name: 'scripts', close: () => scripts.close() });
  readiness.register('scripts', queueCheck('scripts', scripts.api.queueCounts));
  // Connecting end users (lib/connect): connect sessions, the connect link, the OAuth callback,
  // app setup and the API key form. Built after the scripts: post_connection_script names
  // resolve through their registry first, then the built-in hooks.
  const connect = await step(() =>
    createConnect({
      storage,
      baseUrl,
      catalog,
      integrations,
      connections,
      events,
      logger,
      cipher,
      sessionTtlMs: options.connectSessionTtlMs,
      branding: options.connectBranding,
      hooks: createScriptHooks(createHookRegistry(options.postConnectionHooks), () => scripts.api),
      fetch: (input, init) => globalThis.fetch(input, init),
    }),
  );
  routeGroups.push(connect.routes);
  // Routes that answer without a secret key (provider redirects, provider webhooks, docs), and
  // the routes behind `Authorization: Bearer <secret key>`.
  const { publicRouters, protectedRouters, routes } = await step(() => routeTable(routeGroups));

  const authenticate = createAuthenticate(createKeyMatcher(options.environments));
  const auth = createSecretKeyAuth(authenticate);
  const publicStack = compose(publicRouters.map((r) => r.routes() as Middleware));
  const protectedStack = compose([
    auth,
    ...protectedRouters.flatMap((r) => [r.routes() as Middleware, r.allowedMethods({ throw: true }) as Middleware]),
  ]);
  const publicPaths = publicRouters.flatMap((r) => r.stack);

  // Request id, the one error shape, and the request log (with the status the caller got),
  // around the dispatch: a proxied call goes straight to the proxy, past the route tables.
  const nextRequestId = createRequestIds();
  const forward = (ctx: HttpContext) => {
    authenticate(ctx);
    return proxy.forward(ctx);
  };
  const middleware: Middleware = createEdge<Koa.ParameterizedContext>(
    logger,
    (ctx, next) =>
      // The raw request line (a mount has already taken its prefix off `req.url`): no URL parsing here.
      proxy.handles(ctx.req.method ?? '', ctx.req.url ?? '') ? forward(ctx) : route(ctx, next),
    nextRequestId,
  );
  // `callback()`'s proxied calls skip Koa's context: the same edge and proxy on a lane context.
  const lane = createLane(createEdge(logger, forward, nextRequestId), logger);

  /** Everything but the proxy: public routes, then the secret key and the protected routes. */
  async function route(ctx: Koa.ParameterizedContext, next: Koa.Next): Promise<void> {
    // A public route answers without a key; everything else needs one, then 404s if unmatched.
    if (
      publicPaths.some(
        (layer) => layer.match(ctx.path) && (layer.methods.length === 0 || layer.methods.includes(ctx.method)),
      )
    ) {
      return publicStack(ctx, next);
    }
    await protectedStack(ctx, async () => {});
    if (ctx.respond !== false && ctx.status === 404 && ctx.body == null) {
      fail('unknown_route', `No route ${ctx.method} ${ctx.path}.`);
    }
  }

  const app = new Koa();
  app.proxy = true;
  app.silent = true;
  app.use(middleware);

  // Key rotation: with an older key still configured, a background pass re-seals what it sealed.
  const environmentNames = options.environments.map((e) => e.name);
  const reseal = (progress?: (step: ResealProgress) => void) =>
    resealAll({ storage, cipher, environments: environmentNames }, progress);
  let resealing: Promise<unknown> | undefined;
  if (encryptionKeys.length > 1) {
    resealing = reseal((step) => {
      if (step.resealed > 0 || step.unreadable > 0) logger.info('keys: re-sealed under the current key', { ...step });
    })
      .then((steps) =>
        logger.info('keys: re-seal pass finished', { left_unreadable: steps.reduce((n, s) => n + s.unreadable, 0) }),
      )
      .catch((error: unknown) =>
        logger.warn('keys: the re-seal pass stopped; it runs again at the next start', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    closers.unshift({
      name: 'reseal',
      close: async () => {
        await resealing;
      },
    });
  }

  return {
    /** The Koa middleware stack; mount it under any prefix. */
    middleware,
    /** A Koa application running only the stack. */
    app,
    /** A Node `(req, res)` handler, for http.createServer or Express. */
    callback: () => {
      const koa = app.callback();
      return (req: IncomingMessage, res: ServerResponse) =>
        proxy.handles(req.method ?? '', req.url ?? '') ? lane(req, res) : koa(req, res);
    },
    logger,
    baseUrl,
    catalog,
    events,
    integrations,
    connections,
    /** `webhooks.send(environment, event)`: sync, records and action events for the customer. */
    webhooks: webhooks.api,
    /** Synced records: batchSave, batchDelete, deleteNotSeenSince, prune, compact, list (GET /records). */
    records,
    /** Calls providers from code with a connection's credentials: `proxy.request({ environment, providerConfigKey, connectionId, path })`. */
    proxy: { request: proxy.request, sockets: proxy.sockets, limits: proxy.limits },
    /** Syncs (trigger, pause, start, status), actions, logs and the script registry. */
    scripts: scripts.api,
    /** The storage as the gateway uses it: every command bounded by `storeTimeoutMs`. */
    storage,
    cipher,
    /** Re-seals every value sealed under an older key (`portico keys reseal`); safe to run again. */
    keys: { reseal },
    /** Every method and path served: `{ method, path, auth }`. */
    routes,
    /** Prometheus metrics (`registry`, `scrape()`), when `options.metrics` was given. */
    metrics,
    /** `health.register(name, check)`: adds a check to `GET /health/ready` (a worker pool, a queue consumer). */
    health: { register: readiness.register },
    /**
     * Stops what the gateway started (timers, workers), each part within `closeTimeoutMs` and all
     * within `closeDeadlineMs` (10 s), so it resolves whatever the store does. The storage belongs to the caller.
     */
    close: () => closeParts(closers, logger, deadlines),
  };
}
