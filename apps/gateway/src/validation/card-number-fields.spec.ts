import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import fc from 'fast-check';
import { DOCUMENTED_TEST_CARDS, groupedAsPrinted } from '@payments/testing';
import { OrderDetailsDto, PayerDto, WalletDataDto } from '../orders/create-order.dto';
import { FindOrderDto } from '../orders/orders.controller';
import { P2pDetailsDto, P2pPartyDto } from '../p2p/create-p2p.dto';
import { FindP2pDto } from '../p2p/p2p.controller';
import { PayoutDetailsDto } from '../payouts/create-payout.dto';
import { FindPayoutDto } from '../payouts/payouts.controller';

/**
 * Every merchant field the gateway checks for card numbers, with the one rule of decision 258
 * (`containsCardNumber`, libs/methods-domain): the fields are read off the validators' metadata, so
 * a new field with @NoCardNumber is tested here without being listed, and the list below says
 * which are ids (ordinary numeric ids must pass) and which free text.
 */
const DTOS = [
  OrderDetailsDto,
  PayerDto,
  WalletDataDto,
  PayoutDetailsDto,
  P2pDetailsDto,
  P2pPartyDto,
  FindOrderDto,
  FindPayoutDto,
  FindP2pDto,
];

const IDS = new Set([
  'OrderDetailsDto.merchantOrderId',
  'PayoutDetailsDto.merchantPayoutId',
  'P2pDetailsDto.merchantP2pId',
  'FindOrderDto.merchantOrderId',
  'FindPayoutDto.merchantPayoutId',
  'FindP2pDto.merchantP2pId',
  'PayerDto.customerId',
  'P2pPartyDto.customerId',
  'WalletDataDto.walletId',
  'P2pPartyDto.walletId',
]);

const checked = DTOS.flatMap((dto) =>
  (
    getMetadataStorage() as unknown as {
      getTargetValidationMetadatas: (...a: unknown[]) => { name?: string; propertyName: string }[];
    }
  )
    .getTargetValidationMetadatas(dto, '', true, false)
    .filter((m) => m.name === 'noCardNumber')
    .map((m) => ({ dto, property: m.propertyName, name: `${dto.name}.${m.propertyName}` })),
);

/** The messages of one property when the DTO is given `value` there (other properties' errors ignored). */
function errorsOf(dto: new () => object, property: string, value: string): string[] {
  const errors = validateSync(plainToInstance(dto, { [property]: value }));
  return errors.filter((e) => e.property === property).flatMap((e) => Object.values(e.constraints ?? {}));
}

describe('card numbers in merchant fields: one rule, every field (decision 258)', () => {
  it('when the fields are read off the validators, then they are the ids and the free text listed', () => {
    expect(checked.map((c) => c.name).sort()).toEqual(
      [
        ...IDS,
        'OrderDetailsDto.description',
        'PayerDto.name',
        'WalletDataDto.walletName',
        'WalletDataDto.walletHolderName',
        'PayoutDetailsDto.description',
        'P2pDetailsDto.description',
        'P2pPartyDto.name',
      ].sort(),
    );
  });

  const TWITTER_EPOCH = 1288834974657n;
  const snowflakes = fc
    .tuple(
      fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2033-06-30') }),
      fc.integer({ min: 0, max: 4_194_303 }),
    )
    .map(([ms, low]) => (((BigInt(ms) - TWITTER_EPOCH) << 22n) | BigInt(low)).toString());
  const dated = fc
    .tuple(
      fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2099-12-31') }),
      fc.integer({ min: 0, max: 99999 }),
    )
    .map(([ms, seq]) => `${new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14)}${String(seq).padStart(5, '0')}`);
  const nanos = fc
    .integer({ min: Date.parse('2001-09-10'), max: Date.parse('2040-12-31') })
    .map((ms) => `${BigInt(ms) * 1_000_000n + 123_456n}`);

  it.each(checked.filter((c) => IDS.has(c.name)).map((c) => [c.name, c]))(
    'when %s is a snowflake, a yyyyMMddHHmmss id or a nanosecond timestamp, then it is taken',
    (_name, { dto, property }) => {
      fc.assert(
        fc.property(fc.oneof(snowflakes, dated, nanos), (id) => errorsOf(dto, property, id).length === 0),
        { seed: 256, numRuns: 3_000 },
      );
      // The id of the report that found the false refusals (a 19-digit yyyyMMddHHmmss id).
      expect(errorsOf(dto, property, '2026112709512345678')).toEqual([]);
    },
  );

  const forms = DOCUMENTED_TEST_CARDS.flatMap((c) => [
    c.number,
    groupedAsPrinted(c.number, '-'),
    groupedAsPrinted(c.number, ' '),
  ]);

  it.each(checked.map((c) => [c.name, c]))(
    'when %s holds any documented test card (plain, dashed or spaced), then it is refused, the number never in the message',
    (name, { dto, property }) => {
      for (const card of forms) {
        // An id is the card alone; free text holds it among words.
        const value = IDS.has(name) ? card : `pay ${card} thanks`;
        const messages = errorsOf(dto, property, value);
        expect(messages).toContain('must not contain a card number');
        expect(messages.join(' ')).not.toContain(card.replace(/\D/g, '').slice(6, 12));
      }
    },
  );
});
