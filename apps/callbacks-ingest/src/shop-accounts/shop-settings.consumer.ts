import { Controller, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Envelope, parsePayload, shopProviderSettings, ShopSettingsTypes } from '@payments/contracts';
import { ShopProviderAccountsRepository } from './shop-provider-accounts.repository';

/**
 * Keeps the newest Click and Payme accounts of each shop (idempotent by version), from the
 * compacted `shops.settings`, as merchant-callbacks keeps callback secrets (decision 341).
 */
@Controller()
export class ShopSettingsConsumer {
  private readonly logger = new Logger('ProviderAccounts');

  constructor(private readonly accounts: ShopProviderAccountsRepository) {}

  @EventPattern(ShopSettingsTypes.snapshot)
  async apply(@Payload() message: Envelope): Promise<void> {
    const snapshot = parsePayload(shopProviderSettings, message.payload, message.type);
    if (!(await this.accounts.upsert(snapshot))) return;
    // Which providers, never an id's secret nor the sealed value.
    const providers = Object.keys(snapshot.providerAccounts ?? {});
    this.logger.log(
      `shop ${snapshot.shopId} provider accounts v${snapshot.version} applied (${providers.join(', ') || 'none'})`,
    );
  }
}
