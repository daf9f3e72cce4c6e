import { Body, Controller, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { GetOrderQuery, OrderCommandTypes, OrderView, Topics } from '@payments/contracts';
import { KafkaRequestClient } from '@payments/messaging';
import { ProblemException } from '@payments/platform';
import { CurrentShop, MerchantAuthGuard, ShopPrincipal } from '../auth/merchant-auth.guard';
import { REQUEST_CLIENT } from '../tokens';
import { CreateOrderDto } from './create-order.dto';
import { ask } from './domain-requests';
import { crossFieldErrors, toCreateOrderCommand } from './order-request.rules';

const orderIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new ProblemException('notFound', 'No such order.'),
});

@ApiTags('orders')
@ApiBearerAuth()
@UseGuards(MerchantAuthGuard)
@Controller(['order', 'api/v1/order'])
export class OrdersController {
  constructor(@Inject(REQUEST_CLIENT) private readonly client: KafkaRequestClient) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create Order' })
  create(@CurrentShop() shop: ShopPrincipal, @Body() body: CreateOrderDto): Promise<OrderView> {
    const errors = crossFieldErrors(body);
    if (errors.length > 0) throw new ProblemException('validation', `${errors[0].path}: ${errors[0].message}`, errors);
    const orderId = randomUUID();
    const command = toCreateOrderCommand(orderId, shop.shopId, body);
    return ask<OrderView>(this.client, Topics.ordersCommands, orderId, OrderCommandTypes.create, command);
  }

  @Get(':orderId')
  @ApiOperation({ summary: 'Retrieve Order' })
  get(@CurrentShop() shop: ShopPrincipal, @Param('orderId', orderIdPipe) orderId: string): Promise<OrderView> {
    const query: GetOrderQuery = { orderId, shopId: shop.shopId };
    return ask<OrderView>(this.client, Topics.ordersCommands, orderId, OrderCommandTypes.get, query);
  }
}
