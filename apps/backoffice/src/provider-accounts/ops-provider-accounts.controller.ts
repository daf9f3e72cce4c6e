import { Body, Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Put, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import {
  AccountProvider,
  accountProviderOf,
  accountView,
  assertValid,
  OpsEndpoint,
  ProviderAccountView,
  sealedAccount,
  ShopRepository,
  ShopSettingsPublisher,
} from '@payments/merchant-admin';
import { ProblemException } from '@payments/platform';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { Audited } from '../operators/audited.decorator';
import { DeleteProviderAccountDto, SetProviderAccountDto } from './provider-accounts.dto';
import {
  clickAccountExample,
  deleteProviderAccountExample,
  paymeAccountExample,
  setClickAccountExample,
  setPaymeAccountExample,
} from './provider-accounts.examples';

const shopIdPipe = new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such shop.') });

function providerOf(code: string): AccountProvider {
  const p = accountProviderOf(code);
  if (!('code' in p)) assertValid([p]);
  return p as AccountProvider;
}

/**
 * A shop's accounts with the providers that call us (Click, Payme; decision 341): operator
 * settings of the shop, validated by the provider's folder, the secret sealed with the card
 * vault's keys in `gateway.shops` and on `shops.settings`, where callbacks-ingest learns them. The
 * gateway owns shops; the backoffice writes its rows and the snapshot in one transaction
 * (decision 300). No answer, log line or audit record carries the secret.
 */
@UseGuards(OpsAuthGuard)
@Controller('ops/v1/shops/:shopId/providers/:provider')
export class OpsProviderAccountsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shops: ShopRepository,
    private readonly publisher: ShopSettingsPublisher,
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
  ) {}

  @Get()
  @OpsEndpoint({
    summary: "A shop's account with a provider: its public ids, never its secret",
    response: { example: clickAccountExample, variants: [paymeAccountExample], open: ['settings'] },
    problems: [404],
  })
  async get(
    @Param('shopId', shopIdPipe) shopId: string,
    @Param('provider') code: string,
  ): Promise<ProviderAccountView> {
    const p = providerOf(code);
    const found = await this.shops.findWithCompany(shopId);
    if (!found) throw new ProblemException('notFound', 'No such shop.');
    const stored = found.shop.providerAccounts?.[p.code];
    if (!stored) throw new ProblemException('notFound', `The shop has no ${p.displayName} account.`);
    return accountView(shopId, p, stored);
  }

  /** The account as it was, for the audit record's `before` (its public part); null when there was none. */
  async accountBefore(shopId: string, code: string): Promise<ProviderAccountView | null> {
    if (!('code' in accountProviderOf(code))) return null;
    try {
      return await this.get(shopId, code);
    } catch (err) {
      if (err instanceof ProblemException && err.kind === 'notFound') return null;
      throw err;
    }
  }

  @Put()
  @Audited({
    action: 'shop.provider-account.set',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'accountBefore', args: ['shopId', 'provider'], checkedByRead: ['provider'] },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: "Set a shop's account with a provider (Click, Payme): its ids and its secret, which is never shown again",
    description:
      "provider: `click` or `payme`. settings as the provider's folder validates them (Payme: " +
      `\`${JSON.stringify(setPaymeAccountExample.settings)}\`); every error names its field ` +
      '(`settings.serviceId`, …) and changes nothing. The secret is sealed at rest and on shops.settings; callbacks-ingest ' +
      'checks the next call with it (a changed key applies at once). A Click service or Payme cashbox belongs to one ' +
      'shop (409 otherwise). Setting the same again changes nothing but its updatedAt.',
    body: { type: SetProviderAccountDto, example: setClickAccountExample },
    response: { example: clickAccountExample, variants: [paymeAccountExample], open: ['settings'] },
    problems: [404, 409],
  })
  async set(
    @Param('shopId', shopIdPipe) shopId: string,
    @Param('provider') code: string,
    @Body() body: SetProviderAccountDto,
  ): Promise<ProviderAccountView> {
    const p = providerOf(code);
    const sealed = sealedAccount(this.config.cardVault.keys, shopId, p, body.settings, new Date());
    if (!sealed.ok) assertValid(sealed.errors);
    const account = (sealed as { account: Record<string, string> }).account;
    try {
      return await this.dataSource.transaction(async (m) => {
        const shop = await this.shops.findShopForUpdate(m, shopId);
        if (!shop) throw new ProblemException('notFound', 'No such shop.');
        shop.providerAccounts = { ...(shop.providerAccounts ?? {}), [p.code]: account };
        shop.settingsVersion += 1;
        await this.shops.saveShop(m, shop);
        await this.publisher.publish(m, shop, await this.shops.companyOf(m, shop));
        return accountView(shopId, p, account);
      });
    } catch (err) {
      // The unique indexes of the gateway's migration: one shop per Click service, per Payme cashbox.
      if (err instanceof QueryFailedError && (err as { code?: string }).code === '23505')
        throw new ProblemException(
          'conflict',
          `settings.${p.settings.account.unique}: belongs to another shop's ${p.displayName} account`,
        );
      throw err;
    }
  }

  @Delete()
  @HttpCode(204)
  @Audited({
    action: 'shop.provider-account.delete',
    object: 'shop',
    idParam: 'shopId',
    read: { method: 'accountBefore', args: ['shopId', 'provider'], checkedByRead: ['provider'] },
  })
  @OpsEndpoint({
    role: 'admin',
    summary: "Delete a shop's account with a provider: its calls for the shop are refused from then on",
    status: 204,
    body: { type: DeleteProviderAccountDto, example: deleteProviderAccountExample },
    problems: [404],
  })
  async delete(
    @Param('shopId', shopIdPipe) shopId: string,
    @Param('provider') code: string,
    @Body() _body: DeleteProviderAccountDto,
  ): Promise<void> {
    const p = providerOf(code);
    await this.dataSource.transaction(async (m) => {
      const shop = await this.shops.findShopForUpdate(m, shopId);
      if (!shop) throw new ProblemException('notFound', 'No such shop.');
      if (!shop.providerAccounts?.[p.code])
        throw new ProblemException('notFound', `The shop has no ${p.displayName} account.`);
      const { [p.code]: _gone, ...rest } = shop.providerAccounts;
      shop.providerAccounts = rest;
      shop.settingsVersion += 1;
      await this.shops.saveShop(m, shop);
      await this.publisher.publish(m, shop, await this.shops.companyOf(m, shop));
    });
  }
}
