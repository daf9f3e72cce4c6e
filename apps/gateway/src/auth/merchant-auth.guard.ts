import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProblemException } from '@payments/platform';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { bearerToken, hashApiKey } from './api-keys';

export interface ShopPrincipal {
  shopId: string;
  companyId: string;
  apiKeyId: string;
}

const UNAUTHORIZED = 'A valid shop API key is required: Authorization: Bearer <key>.';

/**
 * Every merchant route runs as the shop of its key. A missing, malformed, unknown, revoked or
 * expired key gets the same 401, so the answer reveals nothing about which it was.
 */
@Injectable()
export class MerchantAuthGuard implements CanActivate {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined>; shop?: ShopPrincipal }>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new ProblemException('unauthorized', UNAUTHORIZED, undefined, {}, { 'www-authenticate': 'Bearer' });
    const rows: { id: string; shop_id: string; company_id: string }[] = await this.dataSource.query(
      `SELECT k.id, k.shop_id, s.company_id FROM "${this.config.schema}".api_keys k JOIN "${this.config.schema}".shops s ON s.id = k.shop_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [hashApiKey(token)],
    );
    if (rows.length === 0) throw new ProblemException('unauthorized', UNAUTHORIZED, undefined, {}, { 'www-authenticate': 'Bearer' });
    request.shop = { shopId: rows[0].shop_id, companyId: rows[0].company_id, apiKeyId: rows[0].id };
    return true;
  }
}

export const CurrentShop = createParamDecorator((_: unknown, ctx: ExecutionContext): ShopPrincipal => {
  const shop = ctx.switchToHttp().getRequest<{ shop?: ShopPrincipal }>().shop;
  if (!shop) throw new Error('CurrentShop used on a route without MerchantAuthGuard');
  return shop;
});
