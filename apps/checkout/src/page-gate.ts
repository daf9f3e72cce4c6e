import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LinkPurpose, parseLinkToken } from '@payments/contracts';
import { RateLimiter } from '@payments/platform';
import { CHECKOUT_CONFIG, CheckoutConfig } from './config';
import { sendMessage } from './page-replies';

/** A link the gate let through: the order's or payout's id, the token's hash and the page's path. */
export interface AdmittedLink {
  id: string;
  linkHash: string;
  path: string;
}

/** The door of both pages: the link's token parsed, and both rate limits (per client, per link) taken. */
@Injectable()
export class PageGate {
  private readonly perClient: RateLimiter;
  private readonly perLink: RateLimiter;

  constructor(@Inject(CHECKOUT_CONFIG) config: CheckoutConfig) {
    this.perClient = new RateLimiter(config.perClient.perSecond, config.perClient.burst);
    this.perLink = new RateLimiter(config.perLink.perSecond, config.perLink.burst);
  }

  /** Parses the token and takes from both rate limits; answers the page itself when it may not go on. */
  admit(
    token: string,
    req: FastifyRequest,
    reply: FastifyReply,
    lang: string | undefined,
    purpose: LinkPurpose = 'order',
  ): AdmittedLink | undefined {
    const parsed = parseLinkToken(purpose, token);
    const path = `/${purpose === 'order' ? 'pay' : 'payout'}/${parsed ? token : ''}`;
    const now = Date.now();
    const client = this.perClient.take(req.ip, now);
    // Keyed by the token's hash, not the order id (not secret): forged tokens for a real order
    // fill buckets of their own and cannot lock the payer's link out.
    const perLink = parsed ? this.perLink.take(parsed.linkHash, now) : client;
    if (!client.allowed || !perLink.allowed) {
      reply.header('retry-after', String(Math.max(client.retryAfterSeconds, perLink.retryAfterSeconds)));
      sendMessage(429, 'busy', req, reply, lang, path);
      return undefined;
    }
    if (!parsed) {
      sendMessage(404, 'notFound', req, reply, lang, path);
      return undefined;
    }
    return { ...parsed, path };
  }
}
