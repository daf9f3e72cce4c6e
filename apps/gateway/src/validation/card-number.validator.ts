import { registerDecorator, ValidationOptions } from 'class-validator';
import { containsCardNumber, luhnValid } from '@payments/methods-domain';

/** A card number: 12 to 19 digits with a valid Luhn check digit. The message never repeats the number. */
export function IsCardNumber(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCardNumber',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && /^[0-9]{12,19}$/.test(value) && luhnValid(value),
        defaultMessage: () => 'must be a card number of 12 to 19 digits with a valid check digit',
      },
    });
}

/**
 * Free text (a description, a merchant's own id, a name) must not carry a card number: it would be
 * stored and answered in clear, where only the card fields are masked. One rule for free text and
 * ids (`containsCardNumber`, decision 258): a number that is a card number as a whole is refused,
 * an ordinary numeric id (a snowflake, a timestamp) is not. The message never repeats it.
 */
export function NoCardNumber(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'noCardNumber',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !containsCardNumber(value),
        defaultMessage: () => 'must not contain a card number',
      },
    });
}
