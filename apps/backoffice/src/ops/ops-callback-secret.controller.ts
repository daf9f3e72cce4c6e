import { Body, Controller, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { DataSource } from 'typeorm';
import { sealShopSecret } from '@payments/card-vault';
import { ProblemException } from '@payments/platform';
import { generateCallbackSecret } from '@payments/merchant-admin';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { OpsEndpoint } from '@payments/merchant-admin';
import { ShopSettingsPublisher } from '@payments/merchant-admin';
import { ShopRepository } from '@payments/merchant-admin';
import {
  rotateCallbackSecretExample,
  RotatedCallbackSecretView,
  rotatedCallbackSecretExample,
} from './callback-secret.examples';

export class RotateCallbackSecretDto {
  @ApiPropertyOptional({
    example: 24,
    default: 24,
    minimum: 0,
    maximum: 168,
    description:
      'How long callbacks keep carrying a signature with the old secret beside the new one, so the merchant can ' +
      'switch without missing a callback; 0 ends the old secret now.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(168)
  overlapHours?: number;
}

const shopIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such shop.') });

/** A shop's callback secret, replaced with an overlap (docs/merchant-callbacks.md, "Rotating the secret"). */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/shops/:shopId/callback-secret')
export class OpsCallbackSecretController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shops: ShopRepository,
    private readonly publisher: ShopSettingsPublisher,
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
  ) {}

  /**
   * The audit record's `before`: non-secret facts of the shop's callback secret (its settings
   * version, and until when the previous secret still signs), never a secret.
   */
  async secretBefore(
    shopId: string,
  ): Promise<{ shopId: string; settingsVersion: number; previousSecretExpiresAt: string | null }> {
    const found = await this.shops.findWithCompany(shopId);
    if (!found) throw new ProblemException('notFound', 'No such shop.');
    return {
      shopId,
      settingsVersion: found.shop.settingsVersion,
      previousSecretExpiresAt: found.shop.previousCallbackSecretExpiresAt?.toISOString() ?? null,
    };
  }

  @Post('rotate')
  @HttpCode(200)
  @Audited({
    action: 'shop.callback-secret.rotate',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'secretBefore', args: ['shopId'] },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: "Rotate a shop's callback secret: callbacks carry both signatures until the overlap ends",
    description:
      'Generates a new callback-signing secret, shown in this answer only. Until previousSecretExpiresAt, every ' +
      'callback carries two `v1=` signatures in X-Signature, one with the new secret and one with the old; after ' +
      'it, only the new. A rotation during an overlap replaces the older secret: only the last two sign.',
    body: { type: RotateCallbackSecretDto, example: rotateCallbackSecretExample },
    response: { example: rotatedCallbackSecretExample, description: 'The new secret, shown this once' },
    problems: [404],
  })
  async rotate(
    @Param('shopId', shopIdPipe) shopId: string,
    @Body() body: RotateCallbackSecretDto,
  ): Promise<RotatedCallbackSecretView> {
    const secret = generateCallbackSecret();
    const until = new Date(Date.now() + (body.overlapHours ?? 24) * 3_600_000);
    return this.dataSource.transaction(async (m) => {
      const shop = await this.shops.findShopForUpdate(m, shopId);
      if (!shop) throw new ProblemException('notFound', 'No such shop.');
      shop.previousCallbackSecret = shop.callbackSecret;
      shop.previousCallbackSecretExpiresAt = until;
      shop.callbackSecret = sealShopSecret(this.config.cardVault.keys, shop.id, secret);
      shop.settingsVersion += 1;
      await this.shops.saveShop(m, shop);
      await this.publisher.publish(m, shop, await this.shops.companyOf(m, shop));
      return { shopId: shop.id, callbackSecret: secret, previousSecretExpiresAt: until.toISOString() };
    });
  }
}
