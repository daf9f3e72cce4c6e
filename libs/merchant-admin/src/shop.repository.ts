import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MERCHANT_ADMIN_CONFIG, MerchantAdminConfig } from './merchant-admin.config';
import { CompanyEntity, ShopEntity } from './shop.entity';

/** Companies and shops: what operators create and set. */
@Injectable()
export class ShopRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(MERCHANT_ADMIN_CONFIG) private readonly config: MerchantAdminConfig,
  ) {}

  async exists(shopId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM "${this.config.schema}".shops WHERE id = $1`, [
      shopId,
    ]);
    return rows.length > 0;
  }

  async findWithCompany(shopId: string): Promise<{ shop: ShopEntity; company: CompanyEntity } | null> {
    const m = this.dataSource.manager;
    const shop = await m.getRepository(ShopEntity).findOne({ where: { id: shopId } });
    return shop ? { shop, company: await this.companyOf(m, shop) } : null;
  }

  findShopForUpdate(m: EntityManager, id: string): Promise<ShopEntity | null> {
    return m.getRepository(ShopEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The company's shops, locked: their settings versions change with the company's setting. */
  shopsOfCompanyForUpdate(m: EntityManager, companyId: string): Promise<ShopEntity[]> {
    return m.getRepository(ShopEntity).find({ where: { companyId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Ids of every shop, for the boot-time re-sealing of callback secrets. */
  async shopIds(): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(`SELECT id FROM "${this.config.schema}".shops`);
    return rows.map((r) => r.id);
  }

  /**
   * Removes callback secrets in clear from published `shops.settings` outbox rows (kept for a while
   * after publishing); the new, sealed snapshots replace them on the topic.
   */
  async scrubPublishedClearSecrets(): Promise<void> {
    await this.dataSource.query(
      `UPDATE "${this.config.schema}".outbox SET envelope = envelope #- '{payload,callbackSecret}'
       WHERE envelope->'payload' ? 'callbackSecret' AND envelope->'payload'->>'callbackSecret' NOT LIKE 'v1:%'`,
    );
  }

  async insertShop(m: EntityManager, shop: ShopEntity): Promise<void> {
    await m.getRepository(ShopEntity).insert(shop);
  }

  async saveShop(m: EntityManager, shop: ShopEntity): Promise<void> {
    await m.getRepository(ShopEntity).save(shop);
  }

  findCompany(m: EntityManager, id: string): Promise<CompanyEntity | null> {
    return m.getRepository(CompanyEntity).findOne({ where: { id } });
  }

  findCompanyForUpdate(m: EntityManager, id: string): Promise<CompanyEntity | null> {
    return m.getRepository(CompanyEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The company of a shop that exists: a foreign key guarantees it. */
  companyOf(m: EntityManager, shop: ShopEntity): Promise<CompanyEntity> {
    return m.getRepository(CompanyEntity).findOneOrFail({ where: { id: shop.companyId } });
  }

  async insertCompany(company: CompanyEntity): Promise<void> {
    await this.dataSource.getRepository(CompanyEntity).insert(company);
  }

  async saveCompany(m: EntityManager, company: CompanyEntity): Promise<void> {
    await m.getRepository(CompanyEntity).save(company);
  }
}
