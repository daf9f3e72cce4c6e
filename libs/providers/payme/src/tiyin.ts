import { amountOf, MoneyDecimal } from '@payments/money';

/** Payme counts in tiyin, 1/100 of a sum, as an integer: 150000.00 UZS is 15000000. */
export function toTiyin(sums: string): number {
  return amountOf(sums).times(100).toDecimalPlaces(0, MoneyDecimal.ROUND_HALF_UP).toNumber();
}

/** Tiyin back to a decimal string in sums, at UZS's two places. */
export function fromTiyin(tiyin: number): string {
  return amountOf(String(tiyin)).dividedBy(100).toFixed(2);
}
