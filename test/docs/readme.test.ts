import { readFileSync } from 'node:fs';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';

const repo = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', repo), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('package.json', repo), 'utf8')) as {
  exports: Record<string, { default: string }>;
};

/** `portico/x` → the source file its `dist/…/index.js` is built from. */
function sourceOf(specifier: string): URL | undefined {
  const entry = pkg.exports[specifier === 'portico' ? '.' : `./${specifier.slice('portico/'.length)}`];
  return entry ? new URL(entry.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'), repo) : undefined;
}

const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ?? '', code: m[2] ?? '' }));

t.test('every import the README shows names an export that exists', async (t) => {
  const imports = blocks
    .filter((b) => b.lang === 'ts' || b.lang === 'js')
    .flatMap((b) => [...b.code.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(portico[^']*)'/g)]);
  t.ok(imports.length >= 4, 'the README imports from the package');
  for (const [, names, specifier] of imports) {
    const source = sourceOf(specifier as string);
    t.ok(source, `${specifier} is an entry point of the package`);
    if (!source) continue;
    const module = (await import(source.href)) as Record<string, unknown>;
    for (const raw of (names as string)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)) {
      if (raw.startsWith('type ')) continue;
      const name = raw.split(/\s+as\s+/)[0] as string;
      t.ok(name in module, `${specifier} exports ${name}`);
    }
  }
});

t.test('every route the README names is served (or is a removed route it says is gone)', async (t) => {
  // With every optional route on (GET /metrics needs a metrics token).
  const gw = await startGateway(t, { metrics: { token: 'mt_docs_check_0123456789', processMetrics: false } });
  const served = gw.gateway.routes().map((r) => ({
    method: r.method,
    pattern: new RegExp(`^${r.path.replace(/\{\*[^}]+\}/g, '.+').replace(/:[A-Za-z]+|\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const named = new Set<string>();
  // `METHOD /path` in text and tables; `curl -X METHOD …/path` and plain `curl …/path` (GET) in blocks.
  for (const m of readme.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s?]*)/g)) named.add(`${m[1]} ${m[2]}`);
  for (const b of blocks.filter((x) => x.lang === 'sh')) {
    for (const line of b.code.replace(/\\\n/g, ' ').split('\n')) {
      const curl = /curl\b(.*)/.exec(line)?.[1];
      if (!curl) continue;
      const method = /-X\s+(\w+)/.exec(curl)?.[1] ?? 'GET';
      const url = /https?:\/\/[^\s"']+/.exec(curl)?.[0];
      if (url) named.add(`${method} ${new URL(url.replace(/\$\{?\w+\}?/g, 'x')).pathname}`);
    }
  }
  t.ok(named.size > 20, `the README names routes (${named.size})`);
  for (const route of named) {
    const [method, rawPath] = route.split(' ') as [string, string];
    const path =
      rawPath
        .replace(/^\{prefix\}/, '')
        .replace(/\{[^}]+\}|<[^>]+>|…/g, 'x')
        .replace(/\/+$/, '') || '/';
    if (path.startsWith('/connection/') || path === '/connection') continue; // the removed routes, named as such
    if (path.startsWith('/proxy/') || path.startsWith('/webhook/')) {
      t.ok(
        served.some((s) => s.pattern.test(path)),
        `${route}`,
      );
      continue;
    }
    t.ok(
      served.some((s) => s.method === method && s.pattern.test(path)),
      `${route} is served`,
    );
  }
});
