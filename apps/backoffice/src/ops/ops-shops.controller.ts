import { Body, Controller, HttpCode, Inject, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { sealShopSecret } from '@payments/card-vault';
import { ProblemException } from '@payments/platform';
import { ApiKeyRepository } from '@payments/merchant-admin';
import { generateCallbackSecret } from '@payments/merchant-admin';
import { OpsAuthGuard } from '../auth/ops-auth.guard';
import { Audited } from '../operators/audited.decorator';
import { BACKOFFICE_CONFIG, BackofficeConfig } from '../config';
import { assertValid, callbackUrlErrors } from '@payments/merchant-admin';
import { ShopSettingsPublisher } from '@payments/merchant-admin';
import { CompanyEntity, ShopEntity } from '@payments/merchant-admin';
import { ShopRepository } from '@payments/merchant-admin';
import { DEFAULT_PROCESSING_TIMEOUT_SECONDS } from '@payments/contracts';
import { OpsEndpoint } from '@payments/merchant-admin';
import { CreateCompanyDto, CreateShopDto } from './ops.dto';
import { companyExample, createCompanyExample, createdShopExample, createShopExample } from './ops.examples';

const idPipe = new ParseUUIDPipe({ exceptionFactory: () => new ProblemException('notFound', 'No such company.') });

@UseGuards(OpsAuthGuard)
@Controller('ops/v1/companies')
export class OpsShopsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shops: ShopRepository,
    private readonly keys: ApiKeyRepository,
    private readonly publisher: ShopSettingsPublisher,
    @Inject(BACKOFFICE_CONFIG) private readonly config: BackofficeConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @Audited({ action: 'company.create', object: 'company' })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Create a company',
    status: 201,
    body: { type: CreateCompanyDto, example: createCompanyExample },
    response: { example: companyExample },
  })
  async createCompany(@Body() body: CreateCompanyDto) {
    const company = Object.assign(new CompanyEntity(), {
      id: randomUUID(),
      name: body.name,
      useCustomerDataAsPayer: body.useCustomerDataAsPayer ?? false,
    } satisfies Partial<CompanyEntity>);
    await this.shops.insertCompany(company);
    return { id: company.id, name: company.name, useCustomerDataAsPayer: company.useCustomerDataAsPayer };
  }

  /** The answer is the only time the API key is shown; it is stored hashed. */
  @Post(':companyId/shops')
  @HttpCode(201)
  @Audited({ action: 'shop.create', object: 'shop' })
  @OpsEndpoint({
    role: 'operator',
    summary: 'Create a shop with its first API key and callback secret',
    status: 201,
    body: { type: CreateShopDto, example: createShopExample },
    response: {
      example: createdShopExample,
      description: 'The shop; apiKey and callbackSecret are shown this once',
      nullable: ['callbackUrl'],
    },
    problems: [404],
  })
  async createShop(@Param('companyId', idPipe) companyId: string, @Body() body: CreateShopDto) {
    assertValid(callbackUrlErrors(body.callbackUrl, 'callbackUrl', this.config));
    return this.dataSource.transaction(async (m) => {
      const company = await this.shops.findCompany(m, companyId);
      if (!company) throw new ProblemException('notFound', 'No such company.');
      const id = randomUUID();
      // Shown once in this answer; stored and published only sealed (docs/security.md).
      const callbackSecret = generateCallbackSecret();
      const shop = Object.assign(new ShopEntity(), {
        id,
        companyId,
        name: body.name,
        callbackUrl: body.callbackUrl ?? null,
        callbackSecret: sealShopSecret(this.config.cardVault.keys, id, callbackSecret),
        amountDeviationLowerPercent: '0',
        amountDeviationUpperPercent: '0',
        autoFinalizeNeedAction: false,
        processingTimeoutSeconds: DEFAULT_PROCESSING_TIMEOUT_SECONDS,
        processingTimeouts: {},
        settingsVersion: 1,
        defaultIntegration: 'host_to_host',
        redirectDomains: [],
        payoutViaPaymentPage: false,
      } satisfies Partial<ShopEntity>);
      await this.shops.insertShop(m, shop);
      await this.publisher.publish(m, shop, company);
      const key = await this.keys.createIn(m, shop.id, null);
      return {
        id: shop.id,
        companyId,
        name: shop.name,
        callbackUrl: shop.callbackUrl,
        apiKey: key.key,
        callbackSecret,
      };
    });
  }
}
