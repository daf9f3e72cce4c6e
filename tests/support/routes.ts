import { RegisteredRoute } from '@payments/platform';

export type Access = 'merchant' | 'ops' | 'public';

export interface ApiRoute {
  method: string;
  /** Fastify's pattern: `/order/:orderId`. */
  url: string;
  /** The same path as OpenAPI writes it: `/order/{orderId}`. */
  openApiPath: string;
  params: string[];
  access: Access;
}

/** Routes anyone may call. Every other route is a merchant route unless it is under /ops/. */
const PUBLIC = new Set(['/health', '/health/ready', '/health/live', '/status-codes', '/api/v1/status-codes']);

/**
 * The API routes of a running app, from what Fastify registered: the ones HEAD mirrors, the
 * Swagger UI's own files and the operators' console (HTML pages, not API; tests/e2e/console.spec.ts)
 * left out. A route added later is here without anyone listing it.
 */
export function apiRoutes(registered: RegisteredRoute[]): ApiRoute[] {
  const seen = new Set<string>();
  const out: ApiRoute[] = [];
  for (const { method, url } of registered) {
    if (method === 'HEAD' || url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-')) continue;
    if (url === '/ops/console' || url.startsWith('/ops/console/')) continue;
    const path = url.length > 1 ? url.replace(/\/$/, '') : url;
    if (seen.has(`${method} ${path}`)) continue;
    seen.add(`${method} ${path}`);
    const params = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
    const access: Access = path.startsWith('/ops/') ? 'ops' : PUBLIC.has(path) ? 'public' : 'merchant';
    out.push({ method, url: path, openApiPath: path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), params, access });
  }
  return out;
}

/** The route's path with each parameter filled in. */
export function fill(route: ApiRoute, values: Record<string, string>, fallback: string): string {
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => values[name] ?? fallback);
}
