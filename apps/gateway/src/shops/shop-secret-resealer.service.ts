import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { needsReseal, resealShopSecret } from '@payments/card-vault';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { ShopSettingsPublisher } from '@payments/merchant-admin';
import { resealedAccounts, ShopRepository } from '@payments/merchant-admin';

/**
 * At boot, seals each shop's callback secret under the newest vault key when it is in clear (a
 * database from before sealing) or under an older key (a rotation), the secrets of its provider
 * accounts too when under an older key (decision 341), and publishes the shop's
 * settings again, so the compacted `shops.settings` keeps only sealed values readable by the
 * keys configured. Several gateways may do it at once: the shop row is locked and re-checked.
 */
@Injectable()
export class ShopSecretResealer implements OnApplicationBootstrap {
  private readonly logger = new Logger(ShopSecretResealer.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shops: ShopRepository,
    private readonly publisher: ShopSettingsPublisher,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const keys = this.config.cardVault.keys;
    let resealed = 0;
    for (const id of await this.shops.shopIds()) {
      await this.dataSource.transaction(async (m) => {
        const shop = await this.shops.findShopForUpdate(m, id);
        if (!shop) return;
        const previous = shop.previousCallbackSecret;
        const accounts = resealedAccounts(keys, shop.id, shop.providerAccounts ?? {});
        if (!needsReseal(keys, shop.callbackSecret) && !(previous && needsReseal(keys, previous)) && !accounts) return;
        shop.callbackSecret = resealShopSecret(keys, shop.id, shop.callbackSecret);
        if (previous) shop.previousCallbackSecret = resealShopSecret(keys, shop.id, previous);
        if (accounts) shop.providerAccounts = accounts;
        shop.settingsVersion += 1;
        await this.shops.saveShop(m, shop);
        await this.publisher.publish(m, shop, await this.shops.companyOf(m, shop));
        resealed += 1;
      });
    }
    await this.shops.scrubPublishedClearSecrets();
    if (resealed > 0) this.logger.log(`${resealed} shop(s) secrets sealed under key ${keys.activeKeyId}`);
  }
}
