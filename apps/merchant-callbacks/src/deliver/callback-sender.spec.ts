import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { guardedLookup, postCallback, RefusedTarget } from './callback-sender';

/** The sender against real sockets on this machine: what it refuses, what it reports. */
describe('callback sender', () => {
  let server: Server;
  let base: string;
  let answer: number | 'hang' = 200;
  const seen: { headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        if (answer !== 'hang') res.writeHead(answer).end('x'.repeat(10));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when the host name resolves to a loopback address, then the connection is refused before it is made', async () => {
    const err = await new Promise<Error | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(err).toBeInstanceOf(RefusedTarget);
    expect(err!.message).toBe('localhost resolves to a non-public address');
  });

  it.each([
    [`http://127.0.0.1:1/cb`, 'callback URL refused: must be an https URL'],
    [
      'https://10.0.0.1/cb',
      'callback URL refused: must not point at a private, loopback, link-local or unique-local address',
    ],
    [
      'https://[::ffff:127.0.0.1]/cb',
      'callback URL refused: must not point at a private, loopback, link-local or unique-local address',
    ],
    [
      'https://[2002:7f00:1::1]/cb',
      'callback URL refused: must not point at a private, loopback, link-local or unique-local address',
    ],
  ])(
    'when %s is posted to outside local development, then the attempt is refused without a request',
    async (url, reason) => {
      const before = seen.length;
      expect(await postCallback(url, '{}', {}, { timeoutMs: 1000, allowInsecure: false })).toEqual({
        kind: 'error',
        reason,
      });
      expect(seen.length).toBe(before);
    },
  );

  it('when the merchant answers, then its status is the result and the body and headers went out as given', async () => {
    answer = 503;
    const result = await postCallback(
      `${base}/cb`,
      '{"a":1}',
      { 'x-event-id': 'e-1' },
      { timeoutMs: 2000, allowInsecure: true },
    );
    expect(result).toEqual({ kind: 'response', status: 503 });
    expect(seen.at(-1)).toMatchObject({ body: '{"a":1}', headers: { 'x-event-id': 'e-1', 'content-length': '7' } });
  });

  it('when the merchant never answers, then the attempt ends with a timeout error', async () => {
    answer = 'hang';
    const result = await postCallback(`${base}/cb`, '{}', {}, { timeoutMs: 200, allowInsecure: true });
    expect(result).toEqual({ kind: 'error', reason: 'no answer within 200 ms' });
  });

  it('when nothing listens, then the attempt ends with a connection error', async () => {
    const result = await postCallback('http://127.0.0.1:1/cb', '{}', {}, { timeoutMs: 2000, allowInsecure: true });
    expect(result).toMatchObject({ kind: 'error', reason: expect.stringContaining('ECONNREFUSED') });
  });
});
