import { Controller, Delete, Inject, Logger, Param, UseGuards } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { CardVault } from '@payments/card-vault';
import { ProblemException } from '@payments/platform';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { IdempotencyRepository } from '@payments/merchant-admin';
import { Audited } from '../operators/audited.decorator';
import { OpsEndpoint } from '@payments/merchant-admin';
import { CARD_VAULT } from '../tokens';
import { erasedCardExample, ErasedCardView } from './cards.examples';

const TOKEN = /^card_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A data-subject request: the card's number leaves the vault for good (docs/security.md, "Erasure"). */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/cards')
export class OpsCardsController {
  private readonly logger = new Logger(OpsCardsController.name);

  constructor(
    @Inject(CARD_VAULT) private readonly vault: CardVault,
    private readonly idempotency: IdempotencyRepository,
  ) {}

  /**
   * The audit record's `before`: the token's state, a live card's BIN and last 4 (what its payouts
   * answer masked anyway), never the PAN; an erased card has none (decision 259).
   */
  async cardBefore(token: string): Promise<{
    token: string;
    bin: string | null;
    last4: string | null;
    erased: boolean;
    erasedAt: string | null;
  }> {
    const card = TOKEN.test(token) ? await this.vault.describe(token) : null;
    if (!card) throw new ProblemException('notFound', 'No such card token.');
    return {
      token: card.token,
      bin: card.bin,
      last4: card.last4,
      erased: card.erasedAt !== null,
      erasedAt: card.erasedAt?.toISOString() ?? null,
    };
  }

  @Delete(':token')
  @ApiParam({
    name: 'token',
    example: erasedCardExample.token,
    description:
      'The card vault token, as payouts (payee_cards) and P2P parties (card) store it; any other value is a 404.',
  })
  @Audited({ action: 'card.delete', object: 'card', idParam: 'token', read: { method: 'cardBefore', args: ['token'] } })
  @OpsEndpoint({
    role: 'admin',
    summary: "Erase a card's number from the card vault (data-subject request)",
    description:
      'Removes the encrypted card number for good, and with it its fingerprint, BIN and last 4, and the body ' +
      'hash of the idempotency records of the requests that carried it (a replay of those is a 422): nothing ' +
      'kept lets the number be recomputed. The token stays, marked erased. Payouts and P2P ' +
      'transactions that used the card keep answering their masked number, and a transfer not yet sent ' +
      'with it is refused rather than sent. Erasing an erased card answers the first erasure again.',
    response: { example: erasedCardExample, description: 'The card, erased' },
    problems: [404],
  })
  async erase(@Param('token') token: string): Promise<ErasedCardView> {
    const erased = TOKEN.test(token) ? await this.vault.erase(token) : null;
    if (!erased) throw new ProblemException('notFound', 'No such card token.');
    // The idempotency records of the requests that carried it keep a SHA-256 of their bodies,
    // which hold the number: those go too (decision 259).
    const forgotten = await this.idempotency.forgetCard(erased.token);
    this.logger.log(`card ${erased.token} erased by an operator (${forgotten} idempotency records forgot it)`);
    return { token: erased.token, erased: true, erasedAt: erased.erasedAt.toISOString() };
  }
}
