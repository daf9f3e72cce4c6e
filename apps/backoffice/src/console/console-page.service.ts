import { Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ProblemException } from '@payments/platform';
import { DeliveryDetailView, DeliveryPage } from '@payments/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { SESSION_COOKIE, sessionIdOf } from '../auth/ops-auth.guard';
import { ConsoleSession, ConsoleSessionRepository } from './console-session.repository';
import { errorPage, Frame, Page, StatusStep } from './console.pages';
import { en } from './console.strings';

type Reply = FastifyReply;

/** An id as the console takes it in a path or a filter. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Only this page's own script and stylesheet, by nonce; nothing inline, nothing from elsewhere. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * What every console page does around its own markup: finds the signed-in operator (or sends them
 * to the sign-in page), reads /ops/v1 routes with the operator's own session, sets the page's
 * headers and nonce, and answers a failed read with an error page in English.
 */
@Injectable()
export class ConsolePageService {
  private readonly logger = new Logger('Console');

  constructor(
    private readonly sessions: ConsoleSessionRepository,
    private readonly adapter: HttpAdapterHost,
  ) {}

  /** A page, or its error page (a 503 in English, not a JSON problem); the sign-in page once the session ended. */
  async render(
    reply: Reply,
    session: ConsoleSession,
    current: Page,
    title: string,
    render: (frame: Frame) => Promise<string | undefined>,
  ): Promise<string | void> {
    const frame = this.frame(reply, title, session, current);
    try {
      const html = await render(frame);
      if (html === undefined) return this.toSignIn(reply);
      return html;
    } catch (err) {
      const detail = err instanceof ProblemException ? err.detail : en.errors.failed;
      const notFound = err instanceof ProblemException && err.kind === 'notFound';
      if (!notFound)
        this.logger.error(`console page ${current} failed: ${err instanceof Error ? err.message : String(err)}`);
      void reply.code(notFound ? 404 : 503);
      return errorPage(frame, detail);
    }
  }

  /** The signed-in operator, or a redirect to the sign-in page. */
  async session(request: FastifyRequest, reply: Reply): Promise<ConsoleSession | undefined> {
    const id = sessionIdOf(request);
    const session = id ? await this.sessions.find(id) : undefined;
    if (!session) this.toSignIn(reply);
    return session;
  }

  toSignIn(reply: Reply): void {
    void reply.code(303).header('location', '/ops/console/sign-in').send();
  }

  /** A read that may find nothing: undefined for a 404 (and a refused session). */
  async callOrMissing<T>(request: FastifyRequest, path: string): Promise<T | undefined> {
    try {
      return await this.call<T>(request, path);
    } catch (err) {
      if (err instanceof ProblemException && err.kind === 'notFound') return undefined;
      throw err;
    }
  }

  /** An /ops/v1 read with the operator's own session: undefined when the session is refused. */
  async call<T>(request: FastifyRequest, path: string): Promise<T | undefined> {
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    const res = await fastify.inject({
      method: 'GET',
      url: path,
      // An injected request is plain http: it carries the session under the plain cookie name.
      headers: { cookie: `${SESSION_COOKIE}=${sessionIdOf(request) ?? ''}` },
      remoteAddress: request.ip,
    });
    if (res.statusCode === 401) return undefined;
    if (res.statusCode === 404) throw new ProblemException('notFound', res.json<{ detail: string }>().detail);
    if (res.statusCode !== 200) throw new ProblemException('unavailable', `${path} answered ${res.statusCode}.`);
    return res.json<T>();
  }

  frame(reply: Reply, title: string, session?: ConsoleSession, current?: Page): Frame {
    const nonce = randomBytes(16).toString('base64');
    void reply.header('content-type', 'text/html; charset=utf-8');
    void reply.header('content-security-policy', contentSecurityPolicy(nonce));
    return { nonce, title, operator: session?.operator, csrfToken: session?.csrfToken, current };
  }

  /** Each callback carries one status change: together, an object's history as the merchant saw it. */
  async history(request: FastifyRequest, objectId: string): Promise<StatusStep[] | undefined> {
    const deliveries = await this.call<DeliveryPage>(request, `/ops/v1/callbacks?objectId=${objectId}&limit=50`);
    if (!deliveries) return undefined;
    const details = await Promise.all(
      deliveries.items.map((d) => this.call<DeliveryDetailView>(request, `/ops/v1/callbacks/${d.id}`)),
    );
    return details
      .filter((d): d is DeliveryDetailView => d !== undefined)
      .map((d) => ({
        d,
        body: d.body as { status?: string; previousStatus?: string; occurredAt?: string; sequence?: number },
      }))
      .sort((a, b) => (a.body.sequence ?? 0) - (b.body.sequence ?? 0))
      .map(({ d, body }) => ({
        at: body.occurredAt ?? d.createdAt,
        from: body.previousStatus ?? null,
        to: body.status ?? d.type,
        deliveryId: d.id,
        delivery: d.status,
      }));
  }
}
