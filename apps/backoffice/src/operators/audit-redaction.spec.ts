import { redacted } from './audit.interceptor';

describe('what the audit log never records', () => {
  it.each([
    ['a callback secret', { callbackSecret: 'whsec_1' }],
    ['a provider account secret (decision 341)', { settings: { serviceId: '70001', secretKey: 'click-key-1' } }],
    ['an API key', { items: [{ apiKey: 'sk_1' }] }],
  ])('when an answer carries %s, then the record has it redacted', (_, value) => {
    const text = JSON.stringify(redacted(value));
    expect(text).toContain('[redacted]');
    for (const secret of ['whsec_1', 'click-key-1', 'sk_1']) expect(text).not.toContain(secret);
  });

  it('when an answer has only public members, then the record keeps them as they are', () => {
    const view = { shopId: 's', provider: 'click', settings: { serviceId: '70001' }, secretSet: true };
    expect(redacted(view)).toEqual(view);
  });
});
