import { Controller, Inject, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  deleteFeeCommand,
  DeletedFee,
  Envelope,
  errorReply,
  FeeListView,
  FeeScheduleView,
  getSettlementQuery,
  LedgerOpsCommandTypes,
  listFeesQuery,
  listRatesQuery,
  okReply,
  parsePayload,
  RateListView,
  RateView,
  Reply,
  setFeeCommand,
  setRateCommand,
  setSettlementCommand,
  SettlementView,
} from '@payments/contracts';
import { feeScheduleErrors, rateErrors, SettingError, settlementDelayErrors } from '@payments/ledger-domain';
import { LEDGER_CONFIG } from '../tokens';
import { LedgerConfig } from '../config';

/** The settlement delay of a shop no operator set (the column's default): one day. */
export const DEFAULT_SETTLEMENT_DELAY_SECONDS = 86_400;

const refused = (errors: SettingError[]): Reply<never> =>
  errorReply({ code: 'invalid', detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors });

interface FeeRow {
  shop_id: string;
  method: string;
  currency: string;
  percent: string;
  fixed: string;
  minimum: string;
  updated_at: Date;
}
interface RateRow {
  id: string;
  base: string;
  quote: string;
  rate: string;
  source: string;
  valid_from: Date;
  valid_to: Date | null;
  created_at: Date;
}

/** `numeric` as text without trailing zeros: `2.500000` is `2.5`. */
const plain = (v: string): string => (v.includes('.') ? v.replace(/0+$/, '').replace(/\.$/, '') : v);

const feeView = (r: FeeRow): FeeScheduleView => ({
  shopId: r.shop_id,
  method: r.method,
  currency: r.currency,
  percent: plain(r.percent),
  fixed: plain(r.fixed),
  minimum: plain(r.minimum),
  updatedAt: r.updated_at.toISOString(),
});

const rateView = (r: RateRow): RateView => ({
  id: String(r.id),
  base: r.base,
  quote: r.quote,
  rate: plain(r.rate),
  source: r.source,
  validFrom: r.valid_from.toISOString(),
  validTo: r.valid_to ? r.valid_to.toISOString() : null,
  createdAt: r.created_at.toISOString(),
});

/**
 * Operators' settings of the books (decision 303), asked by the backoffice on `ledger.ops-commands`:
 * a shop's fee lines and settlement delay, and rates. The audience guard has checked the operator
 * before a handler runs (decision 301); each change is checked again here by the same rules as the
 * backoffice (libs/ledger-domain, settings.ts), so a bad one is refused and writes nothing. The
 * backoffice writes the audit record; a rate records its operator as its source.
 */
@Controller()
export class LedgerSettingsHandler {
  private readonly logger = new Logger(LedgerSettingsHandler.name);
  private readonly s: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
  ) {
    this.s = config.schema;
  }

  @MessagePattern(LedgerOpsCommandTypes.setFee)
  async setFee(@Payload() message: Envelope): Promise<Reply<FeeScheduleView>> {
    const cmd = parsePayload(setFeeCommand, message.payload, message.type);
    const errors = feeScheduleErrors(cmd);
    if (errors.length > 0) return refused(errors);
    const rows: FeeRow[] = await this.dataSource.query(
      `INSERT INTO "${this.s}".fee_schedules AS f (shop_id, method, currency, percent, fixed, minimum, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (shop_id, method, currency) DO UPDATE
         SET percent = EXCLUDED.percent, fixed = EXCLUDED.fixed, minimum = EXCLUDED.minimum, updated_at = now()
       RETURNING shop_id, method, currency, percent::text, fixed::text, minimum::text, updated_at`,
      [cmd.shopId, cmd.method, cmd.currency, cmd.percent, cmd.fixed, cmd.minimum],
    );
    this.logger.log(`fee ${cmd.method} ${cmd.currency} of shop ${cmd.shopId} set by operator ${cmd.operator?.id}`);
    return okReply(feeView(rows[0]));
  }

  @MessagePattern(LedgerOpsCommandTypes.listFees)
  async listFees(@Payload() message: Envelope): Promise<Reply<FeeListView>> {
    const q = parsePayload(listFeesQuery, message.payload, message.type);
    const rows: FeeRow[] = await this.dataSource.query(
      `SELECT shop_id, method, currency, percent::text, fixed::text, minimum::text, updated_at
       FROM "${this.s}".fee_schedules WHERE shop_id = $1 ORDER BY method, currency`,
      [q.shopId],
    );
    return okReply({ shopId: q.shopId, fees: rows.map(feeView) });
  }

  @MessagePattern(LedgerOpsCommandTypes.deleteFee)
  async deleteFee(@Payload() message: Envelope): Promise<Reply<DeletedFee>> {
    const cmd = parsePayload(deleteFeeCommand, message.payload, message.type);
    const rows: unknown[] = await this.dataSource.query(
      `DELETE FROM "${this.s}".fee_schedules WHERE shop_id = $1 AND method = $2 AND currency = $3 RETURNING shop_id`,
      [cmd.shopId, cmd.method, cmd.currency],
    );
    // pg answers a DELETE … RETURNING as [rows, count] through TypeORM's query.
    const deleted = Array.isArray(rows[0]) ? (rows[0] as unknown[]).length > 0 : rows.length > 0;
    return okReply({ deleted });
  }

  @MessagePattern(LedgerOpsCommandTypes.setSettlement)
  async setSettlement(@Payload() message: Envelope): Promise<Reply<SettlementView>> {
    const cmd = parsePayload(setSettlementCommand, message.payload, message.type);
    const errors = settlementDelayErrors(cmd.settlementDelaySeconds);
    if (errors.length > 0) return refused(errors);
    await this.dataSource.query(
      `INSERT INTO "${this.s}".shop_settings (shop_id, settlement_delay_seconds, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (shop_id) DO UPDATE SET settlement_delay_seconds = EXCLUDED.settlement_delay_seconds, updated_at = now()`,
      [cmd.shopId, cmd.settlementDelaySeconds],
    );
    return okReply({ shopId: cmd.shopId, settlementDelaySeconds: cmd.settlementDelaySeconds, default: false });
  }

  @MessagePattern(LedgerOpsCommandTypes.getSettlement)
  async getSettlement(@Payload() message: Envelope): Promise<Reply<SettlementView>> {
    const q = parsePayload(getSettlementQuery, message.payload, message.type);
    const rows: { settlement_delay_seconds: number }[] = await this.dataSource.query(
      `SELECT settlement_delay_seconds FROM "${this.s}".shop_settings WHERE shop_id = $1`,
      [q.shopId],
    );
    return okReply({
      shopId: q.shopId,
      settlementDelaySeconds: rows[0]?.settlement_delay_seconds ?? DEFAULT_SETTLEMENT_DELAY_SECONDS,
      default: rows.length === 0,
    });
  }

  @MessagePattern(LedgerOpsCommandTypes.setRate)
  async setRate(@Payload() message: Envelope): Promise<Reply<RateView>> {
    const cmd = parsePayload(setRateCommand, message.payload, message.type);
    const errors = rateErrors(cmd);
    if (errors.length > 0) return refused(errors);
    // The guard let no command through without its operator; the source names them.
    const source = `operator:${cmd.operator?.id ?? 'unknown'}`;
    const rows: RateRow[] = await this.dataSource.query(
      `INSERT INTO "${this.s}".rates (base, quote, rate, source, valid_from, valid_to)
       VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id::text, base, quote, rate::text, source, valid_from, valid_to, created_at`,
      [cmd.base, cmd.quote, cmd.rate, source, new Date(cmd.validFrom), cmd.validTo ? new Date(cmd.validTo) : null],
    );
    return okReply(rateView(rows[0]));
  }

  @MessagePattern(LedgerOpsCommandTypes.listRates)
  async listRates(@Payload() message: Envelope): Promise<Reply<RateListView>> {
    const q = parsePayload(listRatesQuery, message.payload, message.type);
    const rows: RateRow[] = await this.dataSource.query(
      `SELECT id::text, base, quote, rate::text, source, valid_from, valid_to, created_at FROM "${this.s}".rates
       WHERE ($1::text IS NULL OR base = $1) AND ($2::text IS NULL OR quote = $2)
       ORDER BY valid_from DESC, id DESC LIMIT 100`,
      [q.base ?? null, q.quote ?? null],
    );
    return okReply({ rates: rows.map(rateView) });
  }
}
