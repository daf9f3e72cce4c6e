import { luhnValid } from './luhn';

/** A leading-digit prefix (`'4'`) or an inclusive range of prefixes of one length (`['2221', '2720']`). */
type Prefix = string | readonly [string, string];

/** A card scheme as the card-number rule knows it: where its numbers start and how long they are. */
export interface CardScheme {
  name: string;
  prefixes: readonly Prefix[];
  /** The lengths the scheme issues, not every length it reserves (decision 258). */
  lengths: readonly number[];
}

/**
 * The schemes whose numbers are refused in free text and ids (decision 258): the networks' IIN
 * ranges, with the lengths cards are issued in. Where a scheme reserves 16–19 digits but issues
 * 16 (and 19), only those count: a 17- or 18-digit number starting 62 or 65 is a snowflake id far
 * more often than a card. UATP (1…, 15 digits) is left out: numbers starting with 1 are epoch
 * times and ids, and this service takes no airline cards.
 */
export const CARD_SCHEMES: readonly CardScheme[] = [
  { name: 'visa', prefixes: ['4'], lengths: [13, 16, 19] },
  {
    name: 'mastercard',
    prefixes: [
      ['51', '55'],
      ['2221', '2720'],
    ],
    lengths: [16],
  },
  { name: 'amex', prefixes: ['34', '37'], lengths: [15] },
  { name: 'discover', prefixes: ['6011', ['644', '649'], '65'], lengths: [16, 19] },
  { name: 'unionpay', prefixes: ['62', '81'], lengths: [16, 19] },
  {
    name: 'jcb',
    prefixes: [
      ['3088', '3094'],
      ['3528', '3589'],
    ],
    lengths: [16, 19],
  },
  { name: 'diners', prefixes: [['300', '305'], '3095', '36', '38', '39'], lengths: [14, 16, 19] },
  {
    name: 'maestro',
    prefixes: ['50', ['56', '58'], '6304', '639', '6759', ['6761', '6763']],
    lengths: [13, 14, 15, 16, 17, 18, 19],
  },
  { name: 'mir', prefixes: [['2200', '2204']], lengths: [16] },
  { name: 'rupay', prefixes: ['60', '65', '81', '82', '508'], lengths: [16] },
  { name: 'troy', prefixes: ['9792'], lengths: [16] },
  { name: 'humo', prefixes: ['9860'], lengths: [16] },
  { name: 'uzcard', prefixes: ['8600', '5614'], lengths: [16] },
];

function startsWith(digits: string, prefix: Prefix): boolean {
  if (typeof prefix === 'string') return digits.startsWith(prefix);
  const head = digits.slice(0, prefix[0].length);
  return head.length === prefix[0].length && head >= prefix[0] && head <= prefix[1];
}

/** The scheme whose IIN and length a run of digits has, whatever its check digit; undefined when none. */
export function cardSchemeOf(digits: string): CardScheme | undefined {
  return CARD_SCHEMES.find((s) => s.lengths.includes(digits.length) && s.prefixes.some((p) => startsWith(digits, p)));
}

/**
 * Whether digits, whole, are a card number (decision 258): 13 to 19 of them, the IIN and a length
 * of a scheme above, and a valid Luhn check digit.
 */
export function isPanShaped(digits: string): boolean {
  return /^[0-9]{13,19}$/.test(digits) && cardSchemeOf(digits) !== undefined && luhnValid(digits);
}
