import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { CardVault } from '@payments/card-vault';
import {
  CreateP2pCommand,
  GetP2pByMerchantIdQuery,
  GetP2pQuery,
  P2pCommandTypes,
  P2pPartyCommand,
  P2pView,
  Topics,
} from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { FieldError, ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '@payments/merchant-admin';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { CardTokens, NewObjectId } from '../idempotency/new-object-id.decorator';
import { MerchantEndpoint } from '@payments/merchant-admin';
import { createP2pExample, p2pAnswerShapes, p2pExample } from '@payments/merchant-admin';
import { CARD_VAULT, REQUEST_CLIENT } from '../tokens';
import { IsMerchantId } from '../validation/merchant-id.validator';
import { callbackUrlErrors } from '@payments/merchant-admin';
import { toCommandCost } from '../validation/cost-command';
import { CreateP2pDto, P2pPartyDto } from './create-p2p.dto';

const p2pIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new ProblemException('notFound', 'No such P2P transaction.'),
});

/** The party as the command carries it: its card number exchanged for the vault's token here, at the edge. */
async function party(vault: CardVault, dto: P2pPartyDto | undefined): Promise<P2pPartyCommand | undefined> {
  if (!dto) return undefined;
  const { cardNumber, ...rest } = JSON.parse(JSON.stringify(dto)) as P2pPartyDto;
  if (cardNumber === undefined) return rest;
  const { token, bin, last4, masked } = await vault.tokenize(cardNumber);
  return { ...rest, card: { token, bin, last4, masked } };
}

export class FindP2pDto {
  @ApiProperty({
    description: 'The id the merchant gave the P2P transaction (`p2p.merchantP2pId`)',
    example: 'p2p-1001',
  })
  @IsMerchantId()
  merchantP2pId: string;
}

@ApiTags('p2p')
@UseGuards(MerchantAuthGuard)
@Controller(['p2p', 'api/v1/p2p'])
export class P2pController {
  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(CARD_VAULT) private readonly vault: CardVault,
  ) {}

  @Post()
  @HttpCode(201)
  @MerchantEndpoint({
    summary: 'Create P2P Transaction: sent to the provider asynchronously',
    status: 201,
    body: { type: CreateP2pDto, example: createP2pExample },
    response: { ...p2pAnswerShapes, example: p2pExample, description: 'The P2P transaction, registered' },
    problems: [409, 422, 503],
  })
  async create(
    @CurrentShop() shop: ShopPrincipal,
    @Body() body: CreateP2pDto,
    @NewObjectId() p2pId: string,
    @CardTokens() cardTokens: (token: string) => void,
  ): Promise<P2pView> {
    const errors: FieldError[] = callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config);
    if (errors.length > 0)
      throw new ProblemException('validation', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
    const sender = await party(this.vault, body.sender);
    const recipient = await party(this.vault, body.recipient);
    for (const p of [sender, recipient]) if (p?.card) cardTokens(p.card.token);
    const command: CreateP2pCommand = {
      p2pId,
      shopId: shop.shopId,
      merchantP2pId: body.p2p.merchantP2pId,
      cost: toCommandCost(body.p2p.cost),
      ...(body.p2p.description ? { description: body.p2p.description } : {}),
      ...(sender ? { sender } : {}),
      ...(recipient ? { recipient } : {}),
      ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
    };
    return ask<P2pView>(this.client, Topics.p2pCommands, p2pId, P2pCommandTypes.create, command);
  }

  @Get()
  @MerchantEndpoint({
    summary:
      "Find a P2P transaction by the merchant's own id (merchantP2pId): the same answer as Retrieve P2P Transaction",
    response: { ...p2pAnswerShapes, example: p2pExample },
    problems: [400, 404, 503],
  })
  find(@CurrentShop() shop: ShopPrincipal, @Query() q: FindP2pDto): Promise<P2pView> {
    const query: GetP2pByMerchantIdQuery = { merchantP2pId: q.merchantP2pId, shopId: shop.shopId };
    return ask<P2pView>(
      this.client,
      Topics.p2pCommands,
      // Keyed by the shop alone: the merchant's id is free text and never belongs in a message key.
      shop.shopId,
      P2pCommandTypes.getByMerchantId,
      query,
    );
  }

  @Get(':id')
  @MerchantEndpoint({
    summary: 'Retrieve P2P Transaction',
    response: { ...p2pAnswerShapes, example: p2pExample },
    problems: [404, 503],
  })
  get(@CurrentShop() shop: ShopPrincipal, @Param('id', p2pIdPipe) p2pId: string): Promise<P2pView> {
    const query: GetP2pQuery = { p2pId, shopId: shop.shopId };
    return ask<P2pView>(this.client, Topics.p2pCommands, p2pId, P2pCommandTypes.get, query);
  }
}
