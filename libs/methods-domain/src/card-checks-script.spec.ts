import type { CardBrand } from '@payments/contracts';
import { brandOf, CARD_BRAND_RULES, cardChecksScript } from './card-brands';
import { luhnValid } from './check-payee';

/** The pages' checks as a browser runs them: the generated script, evaluated. */
function browserChecks(): { R: Record<string, (p: string) => boolean>; luhn: (p: string) => boolean } {
  return new Function(`${cardChecksScript()} return { R: R, luhn: luhn };`)();
}

const brands = Object.keys(CARD_BRAND_RULES) as CardBrand[];

/** Numbers of every length 12–19 starting with each four-digit prefix of the ranges the brands use. */
function numbers(): string[] {
  const out: string[] = [];
  for (let head = 2000; head <= 9999; head += head < 2800 || (head >= 3000 && head < 7000) || head >= 8590 ? 1 : 37)
    for (let length = 12; length <= 19; length++) out.push(String(head) + '0123456789012345'.slice(0, length - 4));
  return out;
}

describe("the pages' card checks are generated from the server's rules", () => {
  const { R, luhn } = browserChecks();

  it('when the script is generated, then it defines a check for every brand the server knows', () => {
    expect(Object.keys(R).sort()).toEqual([...brands].sort());
  });

  it.each(brands)(
    'when a number is checked against %s in the page, then it is taken exactly when the server takes it',
    (brand) => {
      const disagree = numbers().filter((p) => R[brand](p) !== (brandOf(p, [brand]) === brand));
      expect(disagree).toEqual([]);
    },
  );

  it('when the mastercard rule is written as one pattern, then it is still 51–55 and 2221–2720', () => {
    const taken = (head: number) => brandOf(`${head}000000000000`, ['mastercard']) === 'mastercard';
    for (let head = 2000; head <= 5999; head++)
      expect([head, taken(head)]).toEqual([
        head,
        (head >= 2221 && head <= 2720) || (Math.floor(head / 100) >= 51 && Math.floor(head / 100) <= 55),
      ]);
  });

  it("when the page's Luhn checks a number, then it answers what the server's answers", () => {
    for (const p of [
      '4111111111111111',
      '4111111111111112',
      '5555555555554444',
      '8600123412341234',
      '0',
      '79927398713',
    ])
      expect([p, luhn(p)]).toEqual([p, luhnValid(p)]);
    for (let i = 0; i < 2000; i++) {
      const p = String(4000000000000000 + i * 7919);
      expect(luhn(p)).toBe(luhnValid(p));
    }
  });
});
