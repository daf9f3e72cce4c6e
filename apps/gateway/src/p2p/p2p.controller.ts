import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { CreateP2pCommand, GetP2pQuery, P2pCommandTypes, P2pParty, P2pView, Topics } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { ask } from '../orders/domain-requests';
import { REQUEST_CLIENT } from '../tokens';
import { toCommandCost } from '../validation/cost-command';
import { CreateP2pDto, P2pPartyDto } from './create-p2p.dto';

/** The one place a new P2P transaction's id is made (the Idempotency-Key will derive it later). */
const newObjectId = (): string => randomUUID();

const p2pIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such P2P transaction.') });

function party(dto: P2pPartyDto | undefined): P2pParty | undefined {
  return dto ? (JSON.parse(JSON.stringify(dto)) as P2pParty) : undefined;
}

@ApiTags('p2p')
@ApiBearerAuth()
@UseGuards(MerchantAuthGuard)
@Controller(['p2p', 'api/v1/p2p'])
export class P2pController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create P2P Transaction: sent to the provider asynchronously' })
  create(@CurrentShop() shop: ShopPrincipal, @Body() body: CreateP2pDto): Promise<P2pView> {
    const p2pId = newObjectId();
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
  @ApiOperation({ summary: 'Retrieve P2P Transaction' })
  get(@CurrentShop() shop: ShopPrincipal, @Param('id', p2pIdPipe) p2pId: string): Promise<P2pView> {
    const query: GetP2pQuery = { p2pId, shopId: shop.shopId };
    return ask<P2pView>(this.client, Topics.p2pCommands, p2pId, P2pCommandTypes.get, query);
  }
}
