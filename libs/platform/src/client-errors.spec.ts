import { ConsoleLogger, Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { boundPort, clientErrorHandler, createHttpApp, installProblemHandling } from './service-app';

@Controller()
class PingController {
  @Get('ping')
  ping(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

/** A raw request (fetch would refuse some of these headers itself). */
function get(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; type?: string; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('errors of the HTTP parser, before any route', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    app = await createHttpApp(PingModule, { logger: new ConsoleLogger({ logLevels: [] }), metricsEnabled: false });
    installProblemHandling(app);
    await app.listen(0, '127.0.0.1');
    port = boundPort(app);
  });

  afterAll(() => app.close());

  it('when the headers are too large, then the answer is a 431 problem that does not echo them', async () => {
    const res = await get(port, '/ping', { 'x-big': 'secret-'.repeat(3000) });
    expect(res.status).toBe(431);
    expect(res.type).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toMatchObject({ type: '/problems/headers-too-large', status: 431 });
    expect(res.body).not.toContain('secret-');
  });

  it('when the path is too long, then the answer is the same 431 problem without the path', async () => {
    const res = await get(port, `/${'p'.repeat(100_000)}`);
    expect(res.status).toBe(431);
    expect(res.type).toBe('application/problem+json');
    expect(res.body).not.toContain('pppp');
  });

  it('when the request is well-formed, then the route answers as usual', async () => {
    expect((await get(port, '/ping')).status).toBe(200);
  });
});

describe('clientErrorHandler (what Node does for a socket it cannot answer on)', () => {
  function aSocket(over: { writable?: boolean; headersSent?: boolean } = {}) {
    const written: string[] = [];
    let destroyed = false;
    const socket = {
      writable: over.writable ?? true,
      _httpMessage: over.headersSent === undefined ? undefined : { headersSent: over.headersSent },
      end: (data: string) => written.push(data),
      write: (data: string) => written.push(data),
      destroy: () => (destroyed = true),
    };
    return { socket: socket as unknown as Socket, written, destroyed: () => destroyed };
  }
  const parseError = Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' });

  it.each([
    ['the client reset the connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), {}],
    ['a response is already in flight', parseError, { headersSent: true }],
    ['the socket is not writable', parseError, { writable: false }],
  ])('when %s, then nothing is written and the socket is destroyed', (_when, error, over) => {
    const { socket, written, destroyed } = aSocket(over);
    clientErrorHandler(error, socket);
    expect(written).toEqual([]);
    expect(destroyed()).toBe(true);
  });

  it('when nothing was answered yet, then the 400 problem is written', () => {
    const { socket, written } = aSocket({ headersSent: false });
    clientErrorHandler(parseError, socket);
    expect(written.join('')).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
    expect(written.join('')).toContain('application/problem+json');
  });
});
