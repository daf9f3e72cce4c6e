import {
  Controller,
  DynamicModule,
  Get,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Optional,
  ServiceUnavailableException,
} from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorResult, HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import type { DataSource } from 'typeorm';
import { ComponentHealth, DEFAULT_HEALTH_SETTINGS, HealthRegistry, HealthReport, HealthSettings } from './health';
import { PaymentsMetrics } from './metrics';
import { VerbatimResponse } from './problem';

const healthBody = {
  'application/json': {
    schema: {
      type: 'object',
      description:
        "Terminus's shape: `status`, and each component under `info` (up), `error` (down) and `details` (all).",
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded', 'error', 'shutting_down'] },
        info: { type: 'object', additionalProperties: true },
        error: { type: 'object', additionalProperties: true },
        details: { type: 'object', additionalProperties: true },
      },
    },
    example: {
      status: 'ok',
      info: { database: { status: 'up', detail: 'answers SELECT 1' } },
      error: {},
      details: { database: { status: 'up', detail: 'answers SELECT 1' } },
    },
  },
};

/** The schema is the one each HTTP app's document registers as `Problem` (RFC 9457). */
const problem = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const down = {
  status: 503,
  description:
    '`/problems/service-unavailable`: not ready (or not live). `detail` names each component that fails and why; ' +
    "the members `health`, `info`, `error` and `details` are Terminus's (`error`: each failing component)",
  content: problem,
};

const ALLOWED_METHODS = {
  status: 405,
  description: '`/problems/method-not-allowed`: another method than GET or HEAD',
  content: problem,
};

const FAILED = {
  status: 500,
  description: '`/problems/internal-error`: the check itself failed',
  content: problem,
};

/**
 * `/health/ready`, `/health/live` and `/health` (the same as ready, for what probed it before),
 * answered from the app's HealthRegistry in Terminus's shape (what NestJS users and their
 * dashboards know). 503 when the answer is no; the body says which component and why.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Health');
  private lastReady?: boolean;

  constructor(
    private readonly registry: HealthRegistry,
    private readonly terminus: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
  ) {}

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: whether the service can do its work now (database, Kafka consumer in its group, producers)',
  })
  @ApiResponse({ status: 200, description: 'Every component is ready', content: healthBody })
  @ApiResponse(down)
  @ApiResponse(ALLOWED_METHODS)
  @ApiResponse(FAILED)
  async ready(): Promise<unknown> {
    const report = await this.registry.report();
    this.noteReadiness(report);
    return this.answer(report, 'The service is not ready', (name, h) =>
      h.ready ? 'up' : h.optional ? 'degraded' : 'down',
    );
  }

  @Get('live')
  @ApiOperation({
    summary:
      'Liveness: whether the process can still recover by itself; 503 means restart it (a wedged Kafka client while the broker answers others)',
  })
  @ApiResponse({
    status: 200,
    description: 'Live; components that are not ready show as `degraded`',
    content: healthBody,
  })
  @ApiResponse(down)
  @ApiResponse(ALLOWED_METHODS)
  @ApiResponse(FAILED)
  async live(): Promise<unknown> {
    const report = await this.registry.report();
    return this.answer(report, 'The service cannot recover by itself: restart it', (name, h) =>
      report.liveness?.startsWith(`${name} `) ? 'down' : h.ready ? 'up' : 'degraded',
    );
  }

  @Get()
  @ApiOperation({ summary: 'The same as /health/ready (kept for probes that ask here)' })
  @ApiResponse({ status: 200, description: 'Every component is ready', content: healthBody })
  @ApiResponse(down)
  @ApiResponse(ALLOWED_METHODS)
  @ApiResponse(FAILED)
  async health(): Promise<unknown> {
    return this.ready();
  }

  /**
   * 200 with Terminus's result, or 503 as a problem document (like every error of every app)
   * carrying Terminus's members beside it; `detail` says what fails. Sent verbatim: the problem
   * filter would log each failed probe as an error and hide its detail behind a trace id.
   */
  private async answer(
    report: HealthReport,
    title: string,
    status: (name: string, h: ComponentHealth) => 'up' | 'down' | 'degraded',
  ): Promise<unknown> {
    const checks = Object.entries(report.components).map(([name, h]) => (): HealthIndicatorResult => {
      const session = this.indicators.check(name);
      const data = {
        detail: h.detail,
        ...(h.notReadySince !== undefined ? { since: new Date(h.notReadySince).toISOString() } : {}),
      };
      const s = status(name, h);
      return s === 'up' ? session.up(data) : s === 'down' ? session.down(data) : session.degraded(data);
    });
    try {
      return await this.terminus.check(checks);
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      const { status: health, ...members } = err.getResponse() as { status: string } & Record<string, unknown>;
      const failing = Object.entries(report.components)
        .filter(([name, h]) => status(name, h) === 'down')
        .map(([name, h]) => `${name}: ${h.detail}`);
      const body = {
        type: '/problems/service-unavailable',
        title,
        status: 503,
        detail: (report.liveness && title.includes('recover') ? [report.liveness] : failing).join('; ') || health,
        health,
        ...members,
      };
      throw new VerbatimResponse(
        503,
        { 'content-type': 'application/problem+json', 'retry-after': '5' },
        JSON.stringify(body),
      );
    }
  }

  /** A change of readiness is worth a line; the same answer probe after probe is not. */
  private noteReadiness(report: HealthReport): void {
    if (report.ready === this.lastReady) return;
    if (report.ready) this.logger.log('ready');
    else
      this.logger.warn(
        `not ready: ${Object.entries(report.components)
          .filter(([, h]) => !h.ready && !h.optional)
          .map(([name, h]) => `${name}: ${h.detail}`)
          .join('; ')}`,
      );
    this.lastReady = report.ready;
  }
}

/**
 * Registers the app's database, where it has one (ready while it answers `SELECT 1`), and reports
 * readiness and liveness at /metrics, read at scrape time.
 */
@Injectable()
class HealthLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private notReadySince?: number;
  private readonly removeSources: (() => void)[] = [];

  constructor(
    private readonly registry: HealthRegistry,
    @Optional() @Inject(getDataSourceToken()) private readonly dataSource?: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    if (this.removeSources.length === 0) {
      let last: Promise<HealthReport> | undefined;
      // Both gauges of one scrape share one report.
      const report = () => (last ??= this.registry.report().finally(() => (last = undefined)));
      this.removeSources.push(
        PaymentsMetrics.componentReady.add(async () =>
          Object.entries((await report()).components).map(([component, h]) => ({
            labels: { component },
            value: h.ready ? 1 : 0,
          })),
        ),
        PaymentsMetrics.live.add(async () => [{ labels: {}, value: (await report()).live ? 1 : 0 }]),
      );
    }
    const dataSource = this.dataSource;
    if (!dataSource || this.registry.names().includes('database')) return;
    this.registry.register({
      name: 'database',
      health: async (now) => {
        try {
          await dataSource.query('SELECT 1');
          this.notReadySince = undefined;
          return { ready: true, detail: 'answers SELECT 1' };
        } catch (err) {
          this.notReadySince ??= now;
          return {
            ready: false,
            detail: `does not answer: ${err instanceof Error ? err.message : String(err)}`,
            notReadySince: this.notReadySince,
          };
        }
      },
    });
  }

  onApplicationShutdown(): void {
    for (const remove of this.removeSources.splice(0)) remove();
  }
}

/**
 * The health endpoints of an app, with its HealthRegistry (global: Kafka transports, relays and
 * request clients register their components in it). `gracefulShutdownTimeoutMs`: how long a
 * stopping app answers `shutting_down` (503) before it closes, so a load balancer stops sending.
 */
@Module({})
export class HealthModule {
  static forRoot(settings: Partial<HealthSettings> & { gracefulShutdownTimeoutMs?: number } = {}): DynamicModule {
    const { gracefulShutdownTimeoutMs, ...rest } = settings;
    return {
      module: HealthModule,
      global: true,
      imports: [TerminusModule.forRoot({ logger: false, gracefulShutdownTimeoutMs: gracefulShutdownTimeoutMs ?? 0 })],
      controllers: [HealthController],
      providers: [
        { provide: HealthRegistry, useValue: new HealthRegistry({ ...DEFAULT_HEALTH_SETTINGS, ...rest }) },
        HealthLifecycle,
      ],
      exports: [HealthRegistry],
    };
  }
}
