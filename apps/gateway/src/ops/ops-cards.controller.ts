import { Controller, Delete, Inject, Logger, Param, UseGuards } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { CardVault } from '@payments/card-vault';
import { ProblemException } from '@payments/platform';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { OpsEndpoint } from '../openapi/endpoint.decorator';
import { CARD_VAULT } from '../tokens';
import { erasedCardExample, ErasedCardView } from './cards.examples';

const TOKEN = /^card_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A data-subject request: the card's number leaves the vault for good (docs/security.md, "Erasure"). */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/cards')
export class OpsCardsController {
  private readonly logger = new Logger(OpsCardsController.name);

  constructor(@Inject(CARD_VAULT) private readonly vault: CardVault) {}

  /** The audit record's `before`: the token's state, its number masked (never the PAN). */
  async cardBefore(token: string): Promise<{
    token: string;
    bin: string;
    last4: string;
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
      'Removes the encrypted card number for good. The token stays, marked erased, with its BIN and last 4: ' +
      'payouts and P2P transactions that used the card keep answering their masked number, and a transfer ' +
      'not yet sent with it is refused rather than sent. Erasing an erased card answers the first erasure again.',
    response: { example: erasedCardExample, description: 'The card, erased' },
    problems: [404],
  })
  async erase(@Param('token') token: string): Promise<ErasedCardView> {
    const erased = TOKEN.test(token) ? await this.vault.erase(token) : null;
    if (!erased) throw new ProblemException('notFound', 'No such card token.');
    this.logger.log(`card ${erased.token} (${erased.bin}…${erased.last4}) erased by an operator`);
    return {
      token: erased.token,
      bin: erased.bin,
      last4: erased.last4,
      erased: true,
      erasedAt: erased.erasedAt.toISOString(),
    };
  }
}
