/** The files `portico init` writes: one sync, one action, in the current format. */

/**
 * The first lines of an example: which integration it belongs to and, unless that integration
 * is a GitHub one, that the GitHub calls are there to be replaced.
 */
export function exampleHeader(integration: string): string {
  const lines = [`// Integration "${integration}": the gateway runs this script for its connections.`];
  if (!/github/i.test(integration))
    lines.push(`// The example calls the GitHub API: replace the endpoints and the model with ${integration}'s.`);
  return lines.join('\n') + '\n';
}

export const exampleSync = `import { createSync } from 'portico/scripts';
import { z } from 'zod';

// A model is a zod schema with an id. Records are checked against it before they are saved.
const Repository = z.object({
  id: z.string(),
  name: z.string(),
  full_name: z.string(),
  private: z.boolean(),
  updated_at: z.string(),
});

interface GitHubRepository {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  updated_at: string;
}

export default createSync({
  description: 'Repositories the app installation can access',
  frequency: 'every hour',
  models: { Repository },
  async exec(service) {
    await service.log('listing repositories', { level: 'debug' });
    let total = 0;
    // Calls go through the gateway's proxy: the connection's credentials are attached there.
    for await (const page of service.paginate<GitHubRepository>({
      endpoint: '/installation/repositories',
      params: { per_page: 100 },
      paginate: { type: 'link', link_rel_in_response_header: 'next', response_path: 'repositories' },
    })) {
      await service.batchSave(page.map((repo) => ({
        id: String(repo.id),
        name: repo.name,
        full_name: repo.full_name,
        private: repo.private,
        updated_at: repo.updated_at,
      })), 'Repository');
      total += page.length;
    }
    await service.log(\`saved \${total} repositories\`);
  },
});
`;

export const exampleAction = `import { createAction } from 'portico/scripts';
import { z } from 'zod';

export default createAction({
  description: 'Opens an issue in a repository',
  // The input is checked before exec runs: a bad one is a 400 naming the field.
  input: z.object({
    repository: z.string().regex(/^[\\w.-]+\\/[\\w.-]+$/, 'must be owner/name'),
    title: z.string().min(1),
    body: z.string().optional(),
  }),
  output: z.object({ id: z.string(), number: z.number(), url: z.string() }),
  async exec(service, input) {
    const { data } = await service.post<{ id: number; number: number; html_url: string }>({
      endpoint: \`/repos/\${input.repository}/issues\`,
      data: { title: input.title, body: input.body },
    });
    await service.log(\`created issue #\${data.number}\`);
    return { id: String(data.id), number: data.number, url: data.html_url };
  },
});
`;

/** For editors: the same checks \`portico compile\` runs. */
export const tsconfig = `${JSON.stringify(
  {
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2023', 'DOM'],
      noEmit: true,
      skipLibCheck: true,
      isolatedModules: true,
      esModuleInterop: true,
    },
    exclude: ['dist'],
  },
  null,
  2,
)}\n`;

export const packageJson = (porticoVersion: string, zodVersion: string) =>
  `${JSON.stringify(
    {
      private: true,
      type: 'module',
      description: 'Portico scripts: portico compile, portico dryrun, portico deploy',
      devDependencies: { portico: `^${porticoVersion}`, zod: `^${zodVersion}` },
    },
    null,
    2,
  )}\n`;

export const gitignore = 'dist/\n';
