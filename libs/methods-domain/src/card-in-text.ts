import { luhnValid } from './check-payee';

/**
 * First digits of the cards a payment service meets (ISO/IEC 7812: 2–6 for the card networks,
 * 8600 Uzcard, 9860 HUMO). 0, 1 and 7 are left out: a millisecond timestamp (17…) or a zero-padded
 * id in a merchant's order id is Luhn-valid one time in ten and is not a card.
 */
const CARD_FIRST_DIGIT = /^[2-689]/;

/** Digit groups joined by single separators, as people type card numbers (and as dates, amounts look). */
const GROUP_CHAIN = /\d+(?:[ \-._/]\d+)*/g;

/**
 * How card numbers are printed and typed: the group lengths. Only groups in one of these layouts
 * are joined into one number; any other neighbours (a date and an amount) stay separate numbers.
 */
const CARD_LAYOUTS = [
  [4, 4, 4, 4],
  [4, 4, 4, 4, 3],
  [4, 6, 4],
  [4, 6, 5],
];

/**
 * A hex digest (an HMAC signature, a SHA-256 of a key or a request, a uuid without dashes): 32 or
 * more hex characters with at least one letter. Its digit runs are as long as a card number one
 * time in a few hundred and then Luhn-valid one time in ten: not cards.
 */
const HEX_DIGEST = /\b(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{32,}\b/g;

/** An IBAN, grouped by 4 with single spaces or not: 2 letters, 2 check digits, up to 30 letters or digits. */
const IBAN = /\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;

export interface CardNumberInText {
  /** The digits of the card number. */
  number: string;
  /** Where the digits it was found in start and end in the text (end exclusive). */
  start: number;
  end: number;
  /** The digits were one group of the text, not groups joined in a card layout. */
  oneGroup: boolean;
}

/**
 * Every card number in a text, the one rule both for refusing free text (a description, a
 * merchant's own id) and for proving that nothing stored or published holds a card
 * (libs/testing's card scan). Within each run of digits, and within groups joined by single
 * spaces, dashes, dots, underscores or slashes in a card layout (4-4-4-4, 4-4-4-4-3, 4-6-4, 4-6-5;
 * with no letter stuck to either end, and, unless the groups are typed with spaces, with exactly
 * those lengths: a uuid's hex groups 8-4-4-4-12 happen to be all digits and Luhn-valid often
 * enough to matter in a table of thousands), every window of 13 to 19 digits is tried:
 * a window with a card's first digit and a valid Luhn check digit is a card number. Digits stuck to
 * a card (`ORD04111…`) do not hide it. Valid IBANs (mod 97) and hex digests (32+ hex characters,
 * a signature's or a hash's) are not looked into: their digits pass Luhn one time in ten. Found windows do not overlap: the longest at the leftmost start wins.
 */
export function cardNumbersIn(text: string): CardNumberInText[] {
  const masked = text
    .replace(HEX_DIGEST, (hex) => ' '.repeat(hex.length))
    .replace(IBAN, (iban) => (ibanValid(iban) ? ' '.repeat(iban.length) : iban));
  const found: CardNumberInText[] = [];
  for (const chain of masked.matchAll(GROUP_CHAIN)) {
    const groups: { digits: string; start: number }[] = [];
    for (const g of chain[0].matchAll(/\d+/g)) groups.push({ digits: g[0], start: chain.index + g.index });
    for (const g of groups) windows(g.digits, g.start, g.start + g.digits.length, true, found);
    for (let i = 0; i < groups.length; i++)
      for (const layout of CARD_LAYOUTS) {
        const part = groups.slice(i, i + layout.length);
        if (part.length < layout.length) continue;
        const last = part[part.length - 1];
        const end = last.start + last.digits.length;
        const typed = /^[\d ]+$/.test(masked.slice(part[0].start, end));
        if (!fitsLayout(part, layout, typed)) continue;
        if (glued(masked, part[0].start - 1) || glued(masked, end)) continue;
        const digits = part.map((g) => g.digits).join('');
        windows(digits, part[0].start, last.start + last.digits.length, false, found);
      }
  }
  return found;
}

/** Whether free text holds a card number (cardNumbersIn). */
export function containsCardNumber(text: string): boolean {
  return cardNumbersIn(text).length > 0;
}

/** Typed with spaces, the outer groups may carry more digits stuck to them (`04111 1111 …`). */
function fitsLayout(part: { digits: string }[], layout: number[], typed: boolean): boolean {
  return part.every((g, k) =>
    typed && (k === 0 || k === layout.length - 1) ? g.digits.length >= layout[k] : g.digits.length === layout[k],
  );
}

/** Whether the character at `index` is a letter (the joined groups are part of a longer token, a uuid's). */
function glued(text: string, index: number): boolean {
  return index >= 0 && index < text.length && /[A-Za-z]/.test(text[index]);
}

function windows(digits: string, start: number, end: number, oneGroup: boolean, found: CardNumberInText[]): void {
  for (let i = 0; i + 13 <= digits.length; i++) {
    if (!CARD_FIRST_DIGIT.test(digits[i])) continue;
    for (let length = Math.min(19, digits.length - i); length >= 13; length--) {
      const number = digits.slice(i, i + length);
      if (!luhnValid(number)) continue;
      if (!found.some((f) => f.number === number && f.start === start)) found.push({ number, start, end, oneGroup });
      i += length - 1;
      break;
    }
  }
}

function ibanValid(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const c of rearranged) {
    const value = /[0-9]/.test(c) ? c : String(c.charCodeAt(0) - 55);
    for (const d of value) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}
