import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import { FAILED_AUTH_THROTTLE, FailedAuthThrottle, ProblemException } from '@payments/platform';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { ConsoleSessionRepository } from '../console/console-session.repository';
import { OperatorRepository } from '../operators/operator.repository';
import { hashOperatorToken, mayAct, Operator, OperatorRole, OPS_TOKEN_OPERATOR } from '../operators/operators';
import { OPS_ROLE } from '@payments/merchant-admin';
import { bearerToken } from '@payments/merchant-admin';

export interface OpsRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
  /** `https` behind the ingress that says so (trusted X-Forwarded-Proto), else `http`. */
  protocol?: string;
  body?: unknown;
  params?: Record<string, string>;
  routeOptions?: { url?: string };
  /** Set by OpsAuthGuard: who is acting. */
  operator?: Operator;
  /** Set by OpsAuthGuard when the request came with the console's session cookie. */
  consoleSession?: { id: string; csrfToken: string };
}

/**
 * The console's session cookie (HttpOnly, SameSite=Strict). Over https it is `__Host-ops_session`
 * (Secure, Path=/, no Domain: the browser keeps it to this host and no sibling domain or plain
 * http page can set it); over plain http (a developer's machine) it is `ops_session`, Path=/ops.
 * Each scheme reads only its own name (decision 180).
 */
export const SESSION_COOKIE = 'ops_session';
export const SECURE_SESSION_COOKIE = '__Host-ops_session';

const overHttps = (request: { protocol?: string }) => request.protocol === 'https';

/** The session id from the cookie of this request's scheme. */
export function sessionIdOf(request: {
  protocol?: string;
  headers: Record<string, string | string[] | undefined>;
}): string | undefined {
  return cookieValue(request.headers.cookie, overHttps(request) ? SECURE_SESSION_COOKIE : SESSION_COOKIE);
}

/** The Set-Cookie value that sets (or, with no id, clears) the session cookie for this request's scheme. */
export function sessionCookie(request: { protocol?: string }, id: string | null, maxAgeSeconds: number): string {
  const attributes = overHttps(request) ? 'Path=/; Secure' : 'Path=/ops';
  const name = overHttps(request) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  return `${name}=${id ?? ''}; HttpOnly; SameSite=Strict; ${attributes}; Max-Age=${id ? maxAgeSeconds : 0}`;
}
/** The header the console sends its session's CSRF token in, on every request that changes something. */
export const CSRF_HEADER = 'x-csrf-token';

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | string[] | undefined, name: string): string | undefined {
  const value = Array.isArray(header) ? header.join('; ') : header;
  for (const part of value?.split(';') ?? []) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/**
 * Operator routes take an operator's token: the configured OPS_TOKEN (the first admin) or a named
 * operator's (stored hashed); a merchant key never opens them. The failed-authentication throttle per
 * client address (429 and one log line per address per interval) runs before the token is looked at.
 * A route needs the role its OpsEndpoint names; one that names none needs `viewer` to read and
 * `operator` to change anything, so a viewer can never change state (issue 15 item 1).
 *
 * The console's pages call the same routes with its session cookie instead of a bearer token: then
 * every request that changes something must carry the session's CSRF token in X-CSRF-Token, or it
 * is refused with 403 before anything runs (decision 154).
 */
@Injectable()
export class OpsAuthGuard implements CanActivate {
  private readonly logger = new Logger('OpsAuth');
  private readonly opsToken: Buffer;

  constructor(
    @Inject(BACKOFFICE_CONFIG) config: BackofficeConfig,
    @Inject(FAILED_AUTH_THROTTLE) private readonly throttle: FailedAuthThrottle,
    private readonly operators: OperatorRepository,
    private readonly sessions: ConsoleSessionRepository,
    private readonly reflector: Reflector,
  ) {
    this.opsToken = createHash('sha256').update(config.opsToken).digest();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<OpsRequest>();
    const token = bearerToken(request.headers.authorization);
    const sessionId = token ? undefined : sessionIdOf(request);
    const operator = sessionId
      ? await this.fromSession(request, sessionId)
      : await this.authenticate(request.ip, token);
    request.operator = operator;
    const required =
      this.reflector.get<OperatorRole | undefined>(OPS_ROLE, context.getHandler()) ??
      (request.method === 'GET' || request.method === 'HEAD' ? 'viewer' : 'operator');
    if (!mayAct(operator.role, required)) {
      this.logger.warn(
        `operator ${operator.name} (${operator.role}) refused: ${request.method} ${request.routeOptions?.url ?? ''} needs ${required}`,
      );
      throw new ProblemException('forbidden', `This needs the ${required} role; you are ${operator.role}.`);
    }
    return true;
  }

  /** The operator whose token this is, or the 401 problem (or 429 for an address that keeps failing). */
  async authenticate(address: string | undefined, token: string | undefined): Promise<Operator> {
    const attempt = this.throttle.begin(address, Date.now(), token);
    let operator: Operator | undefined;
    try {
      operator = token ? await this.identify(token) : undefined;
    } catch (err) {
      attempt.abandoned();
      throw err;
    }
    if (!operator) {
      attempt.failed();
      throw new ProblemException(
        'unauthorized',
        'A valid operator token is required: Authorization: Bearer <token>.',
        undefined,
        {},
        { 'www-authenticate': 'Bearer' },
      );
    }
    attempt.succeeded();
    return operator;
  }

  /** The session's operator; for a change, only with the session's CSRF token in X-CSRF-Token. */
  private async fromSession(request: OpsRequest, sessionId: string): Promise<Operator> {
    const attempt = this.throttle.begin(request.ip, Date.now(), sessionId);
    let session;
    try {
      session = await this.sessions.find(sessionId);
    } catch (err) {
      attempt.abandoned();
      throw err;
    }
    if (!session) {
      attempt.failed();
      throw new ProblemException('unauthorized', 'Your console session has ended; sign in again.');
    }
    attempt.succeeded();
    request.consoleSession = { id: sessionId, csrfToken: session.csrfToken };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const given = request.headers[CSRF_HEADER];
      if (typeof given !== 'string' || !sameSecret(given, session.csrfToken)) {
        this.logger.warn(
          `console request without a valid CSRF token refused: ${request.method} ${request.url.split('?')[0]}`,
        );
        throw new ProblemException('forbidden', 'The CSRF token is missing or wrong; reload the page and try again.');
      }
    }
    return session.operator;
  }

  private async identify(token: string): Promise<Operator | undefined> {
    const given = createHash('sha256').update(token).digest();
    if (timingSafeEqual(given, this.opsToken)) return OPS_TOKEN_OPERATOR;
    return this.operators.findActive(hashOperatorToken(token));
  }
}
