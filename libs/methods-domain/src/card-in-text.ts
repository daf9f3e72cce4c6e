import { isPanShaped } from './card-schemes';

/** Digit groups joined by single separators, as people type card numbers (and as dates, amounts look). */
const GROUP_CHAIN = /\d+(?:[ \-._/]\d+)*/g;

/**
 * How card numbers are printed and typed: groups of four, the last of one to four digits (13 to 19
 * digits: 4-4-4-1 … 4-4-4-4-3), and the 4-6-4 and 4-6-5 of Diners Club and American Express. Only
 * groups in one of these layouts are joined into one number; other neighbours (a date and an
 * amount) stay separate numbers.
 */
function layoutEnds(groups: readonly { digits: string }[], i: number): number[] {
  const lengths = groups.map((g) => g.digits.length);
  // The first group may carry leading zeros typed before the card (`04111 1111 …`).
  const first = groups[i].digits.replace(/^0+(?=\d{4}$)/, '').length;
  const ends: number[] = [];
  let total = first;
  if (first === 4) {
    for (let j = i + 1; j < groups.length; j++) {
      total += lengths[j];
      if (lengths[j] >= 1 && lengths[j] <= 4 && total >= 13 && total <= 19) ends.push(j);
      if (lengths[j] !== 4 || total >= 19) break;
    }
    if (lengths[i + 1] === 6 && (lengths[i + 2] === 4 || lengths[i + 2] === 5)) ends.push(i + 2);
  }
  return ends;
}

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

export interface CardSearch {
  /**
   * Also look inside longer numbers: every window of 13 to 19 digits of a run (or of joined
   * groups) that is a card number, so a card with digits stuck after it is found too. Not the rule
   * for refusing input (a 19-digit snowflake id would be refused 8 times in 10); the scans that
   * prove nothing stored holds a card, and the masking of dead letters, use it, where finding
   * more is the safe side.
   */
  insideLongerNumbers?: boolean;
}

/**
 * Every card number in a text (decision 258), the one rule for free text and ids: a number of the
 * text, that is a run of digits (letters around it do not matter: `ORD4111…`), or digit groups
 * joined by single spaces, dashes, dots, underscores or slashes in a card layout (not stuck to a
 * letter, so a uuid's groups are not joined), is a card number when its digits, leading zeros
 * aside, are PAN-shaped as a whole (`isPanShaped`: 13–19 digits, a known scheme's IIN and length,
 * Luhn). A longer number is not a card, so ordinary numeric ids (snowflakes, nanosecond
 * timestamps, `yyyyMMddHHmmss` and a sequence) are not refused. Valid IBANs (mod 97) and hex
 * digests (32+ hex characters, a signature's or a hash's) are not looked into.
 * Found numbers do not overlap: the longest at the leftmost start wins.
 */
export function cardNumbersIn(text: string, search: CardSearch = {}): CardNumberInText[] {
  const masked = text
    .replace(HEX_DIGEST, (hex) => ' '.repeat(hex.length))
    .replace(IBAN, (iban) => (ibanValid(iban) ? ' '.repeat(iban.length) : iban));
  const found: CardNumberInText[] = [];
  const judge = search.insideLongerNumbers ? windows : whole;
  for (const chain of masked.matchAll(GROUP_CHAIN)) {
    const groups: { digits: string; start: number }[] = [];
    for (const g of chain[0].matchAll(/\d+/g)) groups.push({ digits: g[0], start: chain.index + g.index });
    for (const g of groups) judge(g.digits, g.start, g.start + g.digits.length, true, found);
    for (let i = 0; i < groups.length; i++)
      // The longest layout that is a card wins: `6011 0009 9013 9424 009` is one number, not 16 digits and 3.
      for (const j of layoutEnds(groups, i).sort((a, b) => b - a)) {
        const part = groups.slice(i, j + 1);
        const end = groups[j].start + groups[j].digits.length;
        if (glued(masked, part[0].start - 1) || glued(masked, end)) continue;
        if (judge(part.map((g) => g.digits).join(''), part[0].start, end, false, found)) break;
      }
  }
  return found;
}

/** Whether free text or an id holds a card number (cardNumbersIn, decision 258): what the services refuse. */
export function containsCardNumber(text: string): boolean {
  return cardNumbersIn(text).length > 0;
}

/** Whether the character at `index` is a letter (the joined groups are part of a longer token, a uuid's). */
function glued(text: string, index: number): boolean {
  return index >= 0 && index < text.length && /[A-Za-z]/.test(text[index]);
}

function add(found: CardNumberInText[], number: string, start: number, end: number, oneGroup: boolean): void {
  if (!found.some((f) => f.number === number && f.start === start)) found.push({ number, start, end, oneGroup });
}

/** The number, leading zeros aside, as a whole. */
function whole(digits: string, start: number, end: number, oneGroup: boolean, found: CardNumberInText[]): boolean {
  const number = digits.replace(/^0+/, '');
  if (!isPanShaped(number)) return false;
  add(found, number, start, end, oneGroup);
  return true;
}

/** Every window of 13 to 19 digits, the longest card number at each start, windows not overlapping. */
function windows(digits: string, start: number, end: number, oneGroup: boolean, found: CardNumberInText[]): boolean {
  const before = found.length;
  for (let i = 0; i + 13 <= digits.length; i++) {
    for (let length = Math.min(19, digits.length - i); length >= 13; length--) {
      const number = digits.slice(i, i + length);
      if (!isPanShaped(number)) continue;
      add(found, number, start, end, oneGroup);
      i += length - 1;
      break;
    }
  }
  return found.length > before;
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
