import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxProviderClient } from './client';

/** A provider that answers every request with `status` and `body`. */
async function answering(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const request = { kind: 'payment' as const, dispatchId: 'pay_1', reference: 'o1', amount: '1.00', currency: 'USD' };

/** Decision 322 (amended): the adapter says when the provider provably took nothing. */
describe('SandboxProviderClient: what an answer proves', () => {
  it.each<[number, string, object]>([
    [503, '{}', { kind: 'unavailable', notSent: true }],
    [429, '{}', { kind: 'unavailable', notSent: true }],
    [500, '{}', { kind: 'unavailable' }],
    [502, '{}', { kind: 'unavailable' }],
    [504, '{}', { kind: 'unavailable' }],
    [408, '{}', { kind: 'unavailable' }],
    [422, '{"detail":"declined","statusCode":"2-07-01"}', { kind: 'refused', statusCode: '2-07-01' }],
    // Decision 343: the provider knows our payment id, so it may have the money: outcome unknown.
    [409, '{"detail":"payment id exists"}', { kind: 'timed_out' }],
    [400, 'not json', { kind: 'refused' }],
  ])('when the provider answers %s %s, then the answer is %j and nothing more', async (status, body, expected) => {
    const { url, server } = await answering(status, body);
    try {
      const answer = await new SandboxProviderClient(url).start(request, { timeoutMs: 5000 });
      expect(answer).toEqual({ ...expected, reason: expect.stringContaining(`HTTP ${status}`) });
    } finally {
      server.close();
    }
  });

  it('when nothing listens, then unavailable and provably not sent', async () => {
    const { url, server } = await answering(200, '{}');
    await new Promise((resolve) => server.close(resolve));
    const answer = await new SandboxProviderClient(url).start(request, { timeoutMs: 5000 });
    expect(answer).toMatchObject({ kind: 'unavailable', notSent: true });
  });
});
