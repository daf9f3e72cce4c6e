import { Controller, Get, Injectable, Logger, Module, OnModuleInit } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Writable } from 'node:stream';
import { createLogger } from './logging';
import { createHttpApp } from './service-app';

@Controller()
class PingController {
  private readonly logger = new Logger(PingController.name);

  @Get('ping')
  ping(): { ok: true } {
    this.logger.warn('ping answered');
    return { ok: true };
  }
}

@Injectable()
class Ticker implements OnModuleInit {
  private readonly logger = new Logger(Ticker.name);
  ticked!: Promise<void>;

  onModuleInit(): void {
    this.ticked = new Promise((resolve) =>
      setTimeout(() => {
        this.logger.warn('ticked');
        resolve();
      }, 20),
    );
  }
}

@Module({ controllers: [PingController], providers: [Ticker] })
class PingModule {}

/** The services a JSON logger wrote each message under. */
function sink(): { out: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    out,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { service: string; msg: string })
        .map((l) => `${l.service}: ${l.msg}`),
  };
}

describe('several apps in one process (a test stack)', () => {
  const apps: NestFastifyApplication[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));

  it("when each app's classes log (a timer it started, a request it answers), then each line names that app, not the one started last", async () => {
    const started: Record<string, { app: NestFastifyApplication; log: ReturnType<typeof sink> }> = {};
    for (const name of ['orders', 'methods']) {
      const log = sink();
      const logger = createLogger(name, { logFormat: 'json', logLevel: 'warn' }, log.out as never);
      const app = await createHttpApp(PingModule, { logger, metricsEnabled: false });
      apps.push(app);
      await app.listen(0, '127.0.0.1');
      started[name] = { app, log };
    }
    for (const { app } of Object.values(started)) {
      await app.get(Ticker).ticked;
      const res = await fetch(`${await app.getUrl()}/ping`);
      expect(res.status).toBe(200);
    }
    expect(started.orders.log.lines()).toEqual(['orders: ticked', 'orders: ping answered']);
    expect(started.methods.log.lines()).toEqual(['methods: ticked', 'methods: ping answered']);
  });
});
