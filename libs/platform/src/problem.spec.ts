import {
  BadRequestException,
  HttpException,
  NotFoundException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProblemException, ProblemKind, ProblemTypes, problemTypeUri, RouteRegistry, toProblem } from './problem';

const ERRORS_MD = join(__dirname, '..', '..', '..', 'docs', 'errors.md');

/** The rows of the problem table in docs/errors.md: type → its cells. */
function documentedProblems(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of readFileSync(ERRORS_MD, 'utf8').split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const type = cells[0]?.match(/^`(\/problems\/[a-z-]+)`$/)?.[1];
    if (type) rows.set(type, cells);
  }
  return rows;
}

describe('the problem types and their documentation', () => {
  const kinds = Object.keys(ProblemTypes) as ProblemKind[];
  const documented = documentedProblems();

  it('when docs/errors.md is read, then its table has rows (the parser works)', () => {
    expect(documented.size).toBeGreaterThanOrEqual(10);
  });

  it.each(kinds)(
    'when the code has problem kind %s, then docs/errors.md lists its type with its status, when, what to do and whether to retry',
    (kind) => {
      const row = documented.get(problemTypeUri(kind));
      expect(row).toBeDefined();
      const [, status, when, action, retryable] = row!;
      expect(Number(status)).toBe(ProblemTypes[kind].status);
      expect(when.length).toBeGreaterThan(10);
      expect(action.length).toBeGreaterThan(5);
      expect(retryable).toMatch(/^(yes|no)\b/);
    },
  );

  it('when docs/errors.md lists a type, then the code has it (no stale rows)', () => {
    const inCode = new Set(kinds.map(problemTypeUri));
    expect([...documented.keys()].filter((t) => !inCode.has(t))).toEqual([]);
  });
});

describe('turning errors into problems', () => {
  it.each([
    [
      'a TypeORM error with its SQL',
      Object.assign(new Error('relation "gateway.api_keys" does not exist'), {
        name: 'QueryFailedError',
        query: 'SELECT * FROM gateway.api_keys',
      }),
    ],
    [
      'a kafkajs error',
      Object.assign(new Error('This server does not host this topic-partition'), {
        name: 'KafkaJSProtocolError',
        type: 'UNKNOWN_TOPIC_OR_PARTITION',
      }),
    ],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'shopId')")],
    ['a thrown string', 'boom'],
    ['an HTTP error with an unmapped status', new HttpException('upstream said no', 502)],
  ])('when %s escapes a handler, then the answer is the generic internal problem', (_what, error) => {
    const doc = toProblem(error).toDocument();
    expect(doc).toEqual({
      type: '/problems/internal-error',
      title: ProblemTypes.internal.title,
      status: 500,
      detail: 'An internal error occurred. It has been logged under the traceId of this answer; retry later.',
    });
  });

  it.each([
    [
      'PostgreSQL out of connection slots',
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ],
    ['a refused connection, wrapped by TypeORM', { name: 'QueryFailedError', driverError: { code: 'ECONNREFUSED' } }],
    ['an unreachable broker', Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError' })],
  ])('when %s escapes a handler, then the answer is a 503 to retry, not a 500', (_what, error) => {
    const doc = toProblem(error).toDocument();
    expect(doc).toEqual({
      type: '/problems/service-unavailable',
      title: ProblemTypes.unavailable.title,
      status: 503,
      detail: expect.stringContaining('retry the request'),
    });
    expect(JSON.stringify(doc)).not.toContain('too many clients');
  });

  it.each([
    [
      "Fastify's bad JSON",
      '/problems/malformed-body',
      400,
      new BadRequestException("Body is not valid JSON but content-type is set to 'application/json'"),
    ],
    [
      'a body over the limit',
      '/problems/payload-too-large',
      413,
      new PayloadTooLargeException('Request body is too large'),
    ],
    [
      'another content type',
      '/problems/unsupported-media-type',
      415,
      new UnsupportedMediaTypeException('Unsupported Media Type: text/plain'),
    ],
    ['no such route', '/problems/not-found', 404, new NotFoundException('Cannot GET /nowhere')],
  ])('when the framework reports %s, then it is %s (%d)', (_what, type, status, error) => {
    expect(toProblem(error).toDocument()).toMatchObject({ type, status });
    expect(toProblem(error).toDocument().detail).not.toContain('Cannot');
  });

  it('when a ProblemException carries extensions, then they never override the standard members', () => {
    const doc = new ProblemException('conflict', 'taken', undefined, {
      type: 'x',
      status: 200,
      orderId: 'o-1',
    }).toDocument();
    expect(doc).toMatchObject({ type: '/problems/conflict', status: 409, orderId: 'o-1' });
  });
});

describe('the route registry behind 405', () => {
  const registry = new RouteRegistry();
  registry.add('GET', '/order/:orderId');
  registry.add('HEAD', '/order/:orderId');
  registry.add('POST', '/order');
  registry.add('POST', '/order/cancel');

  it.each([
    ['/order/0b6f7a3e-2c1d-4e5f-9a8b-7c6d5e4f3a21', ['GET', 'HEAD']],
    ['/order', ['POST']],
    ['/order/', ['POST']],
    ['/order/cancel', ['GET', 'HEAD', 'POST']],
    ['/orders', []],
    ['/order/a/b', []],
  ])('when %s is asked for, then the methods are %j', (path, methods) => {
    expect(registry.methodsOf(path)).toEqual(methods);
  });
});
