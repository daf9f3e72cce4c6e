import { registerDecorator, ValidationOptions } from 'class-validator';
import { luhnValid } from '@payments/methods-domain';

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
