import { registerDecorator, ValidationOptions } from 'class-validator';

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A card number: 12 to 19 digits with a valid Luhn check digit. The message never repeats the number. */
export function IsCardNumber(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCardNumber',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && /^[0-9]{12,19}$/.test(value) && luhn(value),
        defaultMessage: () => 'must be a card number of 12 to 19 digits with a valid check digit',
      },
    });
}
