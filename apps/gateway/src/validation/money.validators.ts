import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { findCurrency, parseAmount } from '@payments/money';

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
          typeof args.value === 'string' ? `"${args.value.slice(0, 32)}" is not a supported currency` : 'must be a currency code string',
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
