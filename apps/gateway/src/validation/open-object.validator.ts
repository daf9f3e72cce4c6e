import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

const KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * An object whose set of members is open (the spec lists some and says "etc."): any member name
 * of letters, digits and underscores, each value a string of at most `maxLength` characters.
 */
export function IsOpenStringRecord(maxMembers = 32, maxLength = 256, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isOpenStringRecord',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => problem(value, maxMembers, maxLength) === undefined,
        defaultMessage: (args: ValidationArguments) => problem(args.value, maxMembers, maxLength) ?? 'is invalid',
      },
    });
}

function problem(value: unknown, maxMembers: number, maxLength: number): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object';
  const entries = Object.entries(value);
  if (entries.length > maxMembers) return `must have at most ${maxMembers} members`;
  for (const [k, v] of entries) {
    if (!KEY.test(k)) return `member "${k.slice(0, 64)}" has an invalid name`;
    if (typeof v !== 'string' || v.length === 0 || v.length > maxLength)
      return `member ${k} must be a non-empty string of at most ${maxLength} characters`;
  }
  return undefined;
}
