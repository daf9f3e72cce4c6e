import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { UpdateShopSettingsDto } from './ops.dto';

describe('shop settings: a redirect domain names its TLD', () => {
  const domainErrors = async (redirectDomains: string[]) =>
    (await validate(plainToInstance(UpdateShopSettingsDto, { redirectDomains }))).filter(
      (e) => e.property === 'redirectDomains',
    );

  it.each([['merchant.example.com'], ['shop.uz'], ['localhost']])(
    'when redirectDomains is [%s], then it is accepted',
    async (d) => expect(await domainErrors([d])).toEqual([]),
  );

  it.each([['com'], ['uz'], ['example'], ['merchant.example.com', 'com'], ['1.2.3.4']])(
    'when redirectDomains has a bare TLD or no TLD (%s), then it is refused',
    async (...d) => expect((await domainErrors(d)).length).toBe(1),
  );
});
