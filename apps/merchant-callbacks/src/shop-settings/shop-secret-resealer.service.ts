import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { needsReseal, resealShopSecret } from '@payments/card-vault';
import { MERCHANT_CALLBACKS_CONFIG, MerchantCallbacksConfig } from '../tokens';
import { ShopCallbackSettingsRepository } from './shop-callback-settings.repository';

/**
 * At boot, seals under the newest vault key every stored callback secret that is in clear (kept
 * before sealing) or under an older key (a rotation), so an old key can leave the configuration.
 */
@Injectable()
export class ShopSecretResealer implements OnApplicationBootstrap {
  private readonly logger = new Logger(ShopSecretResealer.name);

  constructor(
    private readonly shops: ShopCallbackSettingsRepository,
    @Inject(MERCHANT_CALLBACKS_CONFIG) private readonly config: MerchantCallbacksConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const keys = this.config.secretKeys;
    let resealed = 0;
    for (const { shopId, secret } of await this.shops.secrets()) {
      if (!needsReseal(keys, secret)) continue;
      await this.shops.replaceSecret(shopId, secret, resealShopSecret(keys, shopId, secret));
      resealed += 1;
    }
    if (resealed > 0) this.logger.log(`${resealed} shop callback secret(s) sealed under key ${keys.activeKeyId}`);
  }
}
