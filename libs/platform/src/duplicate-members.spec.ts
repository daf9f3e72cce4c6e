import { Body, ConsoleLogger, Controller, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { duplicateMemberAt } from './service-app';
import { createHttpApp, installProblemHandling } from './service-app';

@Controller()
class EchoController {
  @Post('echo')
  echo(@Body() body: unknown): unknown {
    return body;
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

describe('duplicate member names in a JSON body', () => {
  it.each([
    ['{"cost":"1.00","cost":"1000.00"}', { path: 'cost', message: 'appears more than once' }],
    [
      '{"order":{"cost":{"amount":"1","amount":"2"}}}',
      { path: 'order.cost.amount', message: 'appears more than once' },
    ],
    ['{"a":"x","\\u0061":"y"}', { path: 'a', message: 'appears more than once' }],
    ['{"items":[{"a":1},{"a":1,"a":2}]}', { path: 'items[1].a', message: 'appears more than once' }],
    ['{"a":{"b":1},"b":{"b":1},"c":["a","a"]}', undefined],
    ['{"s":"a \\" , \\"s\\": ","t":"}{"}', undefined],
    ['[1,{"a":1},{"a":2}]', undefined],
    ['"just a string"', undefined],
  ])('when the body is %s, then the duplicate found is %j', (raw, found) => {
    expect(duplicateMemberAt(raw)).toEqual(found);
  });

  describe('through an app', () => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await createHttpApp(EchoModule, { logger: new ConsoleLogger({ logLevels: [] }), metricsEnabled: false });
      installProblemHandling(app);
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
    });

    afterAll(() => app.close());

    const post = (payload: string) =>
      app
        .getHttpAdapter()
        .getInstance()
        .inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });

    it('when a body names cost twice (1.00, then 1000.00), then it is a 400 naming cost, not the last value', async () => {
      const res = await post('{"cost":"1.00","cost":"1000.00"}');
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().errors).toEqual([{ path: 'cost', message: 'appears more than once' }]);
    });

    it('when every member name is distinct, then the body goes through', async () => {
      const res = await post('{"cost":"1.00","order":{"cost":"2.00"}}');
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ cost: '1.00', order: { cost: '2.00' } });
    });
  });
});
