import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { checkTokenStandard, findCurrency, parseAmount, TokenStandardCheck } from '@payments/money';

/** A known currency code (fiat, crypto coin or token, or asset code, including renamed ones). */
export function IsKnownCurrency(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isKnownCurrency',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && findCurrency(value).kind === 'found',
        defaultMessage: (args: ValidationArguments) =>
          typeof args.value === 'string'
            ? `"${args.value.slice(0, 32)}" is not a supported currency`
            : 'must be a currency code string',
      },
    });
}

/**
 * An amount as a decimal string, greater than zero, with no more decimals than the currency in the
 * sibling `currency` property allows.
 */
export function IsMoneyAmount(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isMoneyAmount',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => check(value, args).kind === 'ok',
        defaultMessage: (args: ValidationArguments) => {
          const r = check(args.value, args);
          return r.kind === 'invalid' ? r.reason : 'is invalid';
        },
      },
    });
}

function check(value: unknown, args: ValidationArguments) {
  const code = (args.object as { currency?: unknown }).currency;
  const currency = typeof code === 'string' ? findCurrency(code) : undefined;
  return parseAmount(value, currency?.kind === 'found' ? currency.currency : undefined);
}

/**
 * `tokenStandard` next to a `currency`: required for token-based coins, refused for native coins
 * and fiat, optional (and then consistent) for asset codes. `ignoreForFiat` is the rule of
 * `recipient.merchantBalance.tokenStandard`, which the spec says is ignored for fiat.
 */
export function IsTokenStandardForCurrency(opts: { ignoreForFiat?: boolean } = {}, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isTokenStandardForCurrency',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => checkSibling(value, args, opts).kind === 'ok',
        defaultMessage: (args: ValidationArguments) => {
          const r = checkSibling(args.value, args, opts);
          return r.kind === 'invalid' ? r.reason : 'is invalid';
        },
      },
    });
}

function checkSibling(
  value: unknown,
  args: ValidationArguments,
  opts: { ignoreForFiat?: boolean },
): TokenStandardCheck {
  const code = (args.object as { currency?: unknown }).currency;
  const found = typeof code === 'string' ? findCurrency(code) : undefined;
  // An unknown currency is reported on `currency`; nothing to say about its token standard.
  if (!found || found.kind !== 'found') return { kind: 'ok' };
  if (opts.ignoreForFiat && found.currency.kind === 'fiat') return { kind: 'ok' };
  return checkTokenStandard(found.currency, value);
}
