import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateP2pCommand, GetP2pQuery, P2pCommandTypes, P2pParty, P2pView, Topics } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { FieldError, ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '../messaging/domain-requests';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { NewObjectId } from '../idempotency/new-object-id.decorator';
import { MerchantEndpoint } from '../openapi/endpoint.decorator';
import { createP2pExample, p2pAnswerShapes, p2pExample } from '../payouts/payouts.examples';
import { REQUEST_CLIENT } from '../tokens';
import { callbackUrlErrors } from '../validation/callback-url.validator';
import { toCommandCost } from '../validation/cost-command';
import { CreateP2pDto, P2pPartyDto } from './create-p2p.dto';

const p2pIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new ProblemException('notFound', 'No such P2P transaction.'),
});

function party(dto: P2pPartyDto | undefined): P2pParty | undefined {
  return dto ? (JSON.parse(JSON.stringify(dto)) as P2pParty) : undefined;
}

@ApiTags('p2p')
@UseGuards(MerchantAuthGuard)
@Controller(['p2p', 'api/v1/p2p'])
export class P2pController {
  constructor(
    @Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
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
  create(
    @CurrentShop() shop: ShopPrincipal,
    @Body() body: CreateP2pDto,
    @NewObjectId() p2pId: string,
  ): Promise<P2pView> {
    const errors: FieldError[] = callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config);
    if (errors.length > 0)
      throw new ProblemException('validation', errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
    const sender = party(body.sender);
    const recipient = party(body.recipient);
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
