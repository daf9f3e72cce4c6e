import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { registeredRoutes } from '@payments/platform';
import { http } from '@payments/testing';
import { aShop } from '../support/merchant';
import { apiRoutes, ApiRoute, fill } from '../support/routes';
import { TEST_OPS_TOKEN, TestStack } from '../support/stack';

const PROBLEM_REF = '#/components/schemas/Problem';
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** Everything the document must say about one route, derived from the route itself; each gap named. */
function gapsOf(route: ApiRoute, doc: any): string[] {
  const op = doc.paths?.[route.openApiPath]?.[route.method.toLowerCase()];
  if (!op) return [`${route.method} ${route.url} is missing from the document`];
  const gaps: string[] = [];
  if (!op.summary?.trim()) gaps.push('has no summary');
  const responses: Record<string, any> = op.responses ?? {};
  const success = Object.entries(responses).filter(([status]) => /^2\d\d$/.test(status));
  if (success.length === 0) gaps.push('has no 2xx response');
  for (const [status, response] of success) {
    // A 204 has no body by HTTP, so there is nothing to describe.
    if (status === '204') continue;
    const json = response.content?.['application/json'];
    if (!json?.schema) gaps.push(`${status} has no schema`);
    if (json?.example === undefined && !json?.examples) gaps.push(`${status} has no example`);
  }
  if (WITH_BODY.has(route.method)) {
    const body = op.requestBody?.content?.['application/json'];
    if (!body?.schema) gaps.push('has no request body schema');
    if (body?.example === undefined && !body?.examples) gaps.push('has no request body example');
  }
  const required: number[] = [500];
  if (route.access !== 'public') required.push(401);
  if (WITH_BODY.has(route.method)) required.push(400, 413, 415);
  // A merchant's {shopId} is never a 404 (decisions 24, 53): another shop's is 403, a malformed one 400.
  const ownShop = route.access === 'merchant' && route.params.includes('shopId');
  if (route.params.some((p) => !(ownShop && p === 'shopId'))) required.push(404);
  if (ownShop) required.push(400, 403);
  for (const status of required) if (!responses[status]) gaps.push(`does not declare its ${status} response`);
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400) continue;
    const schema = response.content?.['application/problem+json']?.schema;
    if (schema?.$ref !== PROBLEM_REF)
      gaps.push(`${status} does not answer application/problem+json with the Problem schema`);
  }
  const schemes = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
  const expected = { merchant: 'merchant-key', ops: 'operator-token', public: undefined }[route.access];
  if (expected && !schemes.includes(expected)) gaps.push(`does not require ${expected}`);
  if (!expected && schemes.length > 0) gaps.push(`is public but the document requires ${schemes.join(', ')}`);
  return gaps.map((gap) => `${route.method} ${route.url} ${gap}`);
}

/** Redocly's recommended rules over a document, in a child process (the linter is ESM only). */
function redoclyLint(doc: unknown): { status: number | null; output: string } {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'openapi-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../tools/openapi/lint.mjs'), file], {
    encoding: 'utf8',
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('the OpenAPI documents at /docs cover every route the gateway and the backoffice serve, each its own', () => {
  let stack: TestStack;
  let doc: any;
  /** The backoffice's document: the operator API only (decision 260). */
  let opsDoc: any;
  let routes: ApiRoute[];
  const docOf = (route: ApiRoute) => (route.access === 'ops' ? opsDoc : doc);

  beforeAll(async () => {
    // No domain services: a valid request is answered 503 quickly, an invalid one 400.
    stack = await TestStack.start({
      services: ['gateway', 'callbacks-ingest'],
      extraEnv: { GATEWAY_REQUEST_TIMEOUT_MS: '300', BACKOFFICE_REQUEST_TIMEOUT_MS: '300' },
    });
    const res = await http('GET', `${stack.gateway!.url}/docs/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.body;
    opsDoc = (await http('GET', `${stack.backoffice!.url}/docs/openapi.json`)).body;
    // The backoffice's first: its settings example turns on what merchant examples rely on (payout via payment page).
    routes = [
      ...apiRoutes(registeredRoutes(stack.backoffice!.app)),
      ...apiRoutes(registeredRoutes(stack.gateway!.app)),
    ];
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("when Redocly's recommended rules lint the document, then there are 0 errors and 0 warnings", () => {
    const { status, output } = redoclyLint(doc);
    expect(output).toContain('0 errors, 0 warnings');
    expect(status).toBe(0);
  });

  it("when Redocly's recommended rules lint the backoffice's document, then there are 0 errors and 0 warnings", () => {
    const { status, output } = redoclyLint(opsDoc);
    expect(output).toContain('0 errors, 0 warnings');
    expect(status).toBe(0);
  });

  it('when the two documents are read, then the gateway lists no operator route and the backoffice only operator routes, each with its own credential', () => {
    const paths = (d: any) => Object.keys(d.paths);
    expect(paths(doc).filter((p) => p.startsWith('/ops'))).toEqual([]);
    expect(paths(opsDoc).filter((p) => !p.startsWith('/ops/v1/') && !p.startsWith('/health'))).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['merchant-key']);
    expect(Object.keys(opsDoc.components.securitySchemes)).toEqual(['operator-token']);
    expect(routes.filter((r) => r.access === 'ops').every((r) => r.url.startsWith('/ops/v1/'))).toBe(true);
  });

  it("when Redocly's recommended rules lint callbacks-ingest's document, then there are 0 errors and 0 warnings", async () => {
    const res = await http('GET', `${stack.ingest!.url}/docs/openapi.json`);
    expect(Object.keys(res.body.paths)).toContain('/callbacks/{providerCode}');
    const { status, output } = redoclyLint(res.body);
    expect(output).toContain('0 errors, 0 warnings');
    expect(status).toBe(0);
  });

  it('when a schema has nullable without a type, then the lint fails naming the rule (the lint can fail)', () => {
    const broken = structuredClone(doc);
    broken.components.schemas.Problem.properties.detail = { nullable: true };
    const { status, output } = redoclyLint(broken);
    expect(output).toContain('nullable-type-sibling');
    expect(status).toBe(1);
  });

  it('when the routes are listed, then they are the ones Fastify registered, merchant, operator and public ones among them', () => {
    const names = routes.map((r) => `${r.method} ${r.url}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /order',
        'GET /api/v1/order/:orderId',
        'POST /ops/v1/companies',
        'GET /status-codes',
      ]),
    );
    expect(new Set(routes.map((r) => r.access))).toEqual(new Set(['merchant', 'ops', 'public']));
  });

  it('when every registered route is looked up, then each has a summary, examples, its security and every error response with the Problem schema', () => {
    const gaps = routes.flatMap((route) => gapsOf(route, docOf(route)));
    expect(gaps).toEqual([]);
  });

  it('when a route lacks what is required, then the check names it (the check can fail)', () => {
    const bare = { paths: { '/order': { post: { responses: { 201: { description: 'ok' } } } } } };
    const route: ApiRoute = { method: 'POST', url: '/order', openApiPath: '/order', params: [], access: 'merchant' };
    expect(gapsOf(route, bare)).toEqual(
      expect.arrayContaining([
        'POST /order has no summary',
        'POST /order 201 has no example',
        'POST /order has no request body example',
        'POST /order does not declare its 401 response',
        'POST /order does not declare its 415 response',
        'POST /order does not require merchant-key',
      ]),
    );
    expect(gapsOf({ ...route, url: '/nowhere', openApiPath: '/nowhere' }, bare)).toEqual([
      'POST /nowhere is missing from the document',
    ]);
  });

  it('when each request body example is sent to its route, then the gateway accepts it (the examples are valid requests)', async () => {
    const shop = await aShop(stack.gateway!.url);
    // The hosted-order example returns the payer to merchant.example.com: the shop allow-lists it, as support would.
    const allowed = await http('PATCH', `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/settings`, {
      token: TEST_OPS_TOKEN,
      body: { redirectDomains: ['merchant.example.com'] },
    });
    expect(allowed.status).toBe(200);
    const refused: string[] = [];
    const answered = new Set<number>();
    for (const route of routes.filter((r) => WITH_BODY.has(r.method))) {
      const content =
        docOf(route).paths[route.openApiPath]?.[route.method.toLowerCase()]?.requestBody?.content?.['application/json'];
      const examples = content?.examples
        ? Object.values(content.examples).map((e: any) => e.value)
        : [content?.example];
      for (const example of examples) {
        const token = route.access === 'ops' ? TEST_OPS_TOKEN : shop.apiKey;
        const res = await http(
          route.method,
          `${route.access === 'ops' ? stack.backoffice!.url : stack.gateway!.url}${fill(route, { shopId: shop.shopId, companyId: shop.companyId, method: 'card', currency: 'USD', provider: 'click' }, '0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21')}`,
          { token, body: example },
        );
        answered.add(res.status);
        if ([400, 401, 413, 415].includes(res.status))
          refused.push(`${route.method} ${route.url}: ${res.status} ${res.text}`);
      }
    }
    expect(refused).toEqual([]);
    // Some were carried out (create a company), so credentials and paths were right.
    expect(answered).toContain(201);
  });

  it.each(['gateway', 'backoffice'])(
    'when an answer of the %s refers to a named schema, then its document defines it',
    (app) => {
      const d = app === 'gateway' ? doc : opsDoc;
      const refs = [...JSON.stringify(d.paths).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
      expect(refs).toContain('MethodListDto');
      expect([...new Set(refs)].filter((name) => !d.components.schemas[name])).toEqual([]);
    },
  );

  it('when the shared Problem schema is read, then it has the RFC 9457 members and errors[] with JSON paths', () => {
    const problem = doc.components.schemas.Problem;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail']));
    expect(problem.properties.errors.items.properties).toHaveProperty('path');
  });

  it('when a browser opens /docs, then it gets the Swagger UI page', async () => {
    const res = await http('GET', `${stack.gateway!.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
