import type { CardBrand } from '@payments/contracts';
import { luhnValid } from './check-payee';

/**
 * BIN ranges and lengths of the brands a hosted card form takes (ARCHITECTURE.md section 8):
 * humo 9860, uzcard 8600, visa 4, mastercard 51–55 and 2221–2720. The others of CardBrands are
 * told by their usual prefixes so that a method offering them is not left without a rule. Data,
 * not code: the server's check and the pages' script (`cardChecksScript`) are both made from it.
 */
export const CARD_BRAND_RULES: Readonly<Record<CardBrand, { prefix: string; lengths: readonly number[] }>> = {
  humo: { prefix: '^9860', lengths: [16] },
  uzcard: { prefix: '^8600', lengths: [16] },
  visa: { prefix: '^4', lengths: [13, 16, 19] },
  // 51–55, and 2221–2720 digit by digit.
  mastercard: { prefix: '^(5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)', lengths: [16] },
  mir: { prefix: '^220[0-4]', lengths: [16, 17, 18, 19] },
  unionpay: { prefix: '^62', lengths: [16, 17, 18, 19] },
  maestro: { prefix: '^(5018|5020|5038|6304|6759|676[1-3])', lengths: [12, 13, 14, 15, 16, 17, 18, 19] },
  amex: { prefix: '^3[47]', lengths: [15] },
};

const PREFIXES = Object.fromEntries(
  Object.entries(CARD_BRAND_RULES).map(([brand, r]) => [brand, new RegExp(r.prefix)]),
) as Record<CardBrand, RegExp>;

/** The brands a card form takes when the shop has configured no card method of its own. */
export const DEFAULT_PAGE_CARD_BRANDS: readonly CardBrand[] = ['humo', 'uzcard', 'visa', 'mastercard'];

export type CardNumberCheck =
  { kind: 'ok'; pan: string; brand: CardBrand } | { kind: 'invalid'; reason: 'format' | 'brand' | 'luhn' };

/** The brand a number's BIN belongs to, among `brands`; undefined when none. */
export function brandOf(pan: string, brands: readonly CardBrand[]): CardBrand | undefined {
  return brands.find((b) => PREFIXES[b].test(pan) && CARD_BRAND_RULES[b].lengths.includes(pan.length));
}

/**
 * A card number as typed on a page (spaces and dashes allowed): digits only, a BIN of one of the
 * method's brands at its length, then Luhn. The brand comes first so that a payer who typed a
 * card of a scheme the shop does not take is told so rather than that a digit is wrong.
 */
export function checkCardNumber(typed: string, brands: readonly CardBrand[]): CardNumberCheck {
  const pan = typed.replace(/[\s-]/g, '');
  if (!/^[0-9]{12,19}$/.test(pan)) return { kind: 'invalid', reason: 'format' };
  const brand = brandOf(pan, brands);
  if (!brand) return { kind: 'invalid', reason: 'brand' };
  if (!luhnValid(pan)) return { kind: 'invalid', reason: 'luhn' };
  return { kind: 'ok', pan, brand };
}

/** MM/YY (or MM/YYYY) not in the past, given the current month. */
export function checkExpiry(typed: string, now: { year: number; month: number }): boolean {
  const m = /^\s*(0[1-9]|1[0-2])\s*\/\s*([0-9]{2}|[0-9]{4})\s*$/.exec(typed);
  if (!m) return false;
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  const month = Number(m[1]);
  if (year > now.year + 20) return false;
  return year > now.year || (year === now.year && month >= now.month);
}

/**
 * The pages' card checks, generated from the rules above and the server's own Luhn (issue 31:
 * one rule, one place), as a script fragment that defines `R` (brand → test of a number's BIN and
 * length) and `luhn` (digits → valid check digit) for the page's script to use.
 */
export function cardChecksScript(): string {
  const table = JSON.stringify(
    Object.fromEntries(Object.entries(CARD_BRAND_RULES).map(([brand, r]) => [brand, [r.prefix, r.lengths]])),
  );
  return (
    `var R=(function(T){var o={};Object.keys(T).forEach(function(k){var x=new RegExp(T[k][0]),n=T[k][1];` +
    `o[k]=function(p){return x.test(p)&&n.indexOf(p.length)>=0}});return o})(${table});` +
    `var luhn=${luhnValid.toString()};`
  );
}
