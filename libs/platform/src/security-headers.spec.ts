import { ConsoleLogger, Controller, Get, Module } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from './service-app';

@Controller()
class PingController {
  @Get('ping')
  ping(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

let app: NestFastifyApplication;

beforeAll(async () => {
  app = await createHttpApp(PingModule, { logger: new ConsoleLogger({ logLevels: [] }), metricsEnabled: false });
  SwaggerModule.setup('docs', app, SwaggerModule.createDocument(app, new DocumentBuilder().build()), {
    jsonDocumentUrl: 'docs/openapi.json',
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
});

afterAll(() => app.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers });

/** The directives of a Content-Security-Policy header, by name. */
function csp(header: unknown): Record<string, string[]> {
  return Object.fromEntries(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
}

describe('security headers of every app (createHttpApp)', () => {
  it('when any route answers, then it forbids sniffing, framing and foreign content', async () => {
    const res = await get('/ping');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    const policy = csp(res.headers['content-security-policy']);
    expect(policy['default-src']).toEqual(["'self'"]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(policy['object-src']).toEqual(["'none'"]);
  });

  it('when any route answers (a one-time API key, a callback secret), then no cache may store it', async () => {
    expect((await get('/ping')).headers['cache-control']).toBe('no-store');
  });

  it('when an error answers (404 of no route), then it carries the same headers', async () => {
    const res = await get('/no-such-route');
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
  });

  it('when the request came over https (X-Forwarded-Proto), then HSTS is sent; over http it is not', async () => {
    expect((await get('/ping', { 'x-forwarded-proto': 'https' })).headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
    expect((await get('/ping')).headers['strict-transport-security']).toBeUndefined();
  });

  it('when /docs is opened, then every script and style it loads is allowed by its own policy', async () => {
    const page = await get('/docs');
    expect(page.statusCode).toBe(200);
    const policy = csp(page.headers['content-security-policy']);
    const html = page.body;
    // no inline script: script-src 'self' would block it
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>\s*\S/);
    const sources = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(src).not.toMatch(/^(https?:)?\/\//); // same origin only
      const asset = await get(new URL(src, 'http://x/docs').pathname);
      expect({ src, status: asset.statusCode }).toEqual({ src, status: 200 });
    }
    expect(policy['script-src']).toEqual(["'self'"]);
    // Swagger UI sets inline styles and loads its logos as data: images
    expect(policy['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy['img-src']).toEqual(["'self'", 'data:']);
  });
});
