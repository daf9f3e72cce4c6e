import { Inject, Injectable } from '@nestjs/common';
import { deriveLinkKey, linkHashOf, linkToken, LinkPurpose, OrderView, PayoutView } from '@payments/contracts';
import { FieldError } from '@payments/platform';
import { MERCHANT_ADMIN_CONFIG, MerchantAdminConfig } from './merchant-admin.config';

/**
 * Payment links of hosted pages (docs/decisions.md 125): made from the id under a key derived
 * from the card vault's fingerprint key, so that the gateway can show a live link again without
 * ever storing it; the orders service holds only the link's hash.
 */
@Injectable()
export class PaymentLinks {
  private readonly key: Buffer;
  private readonly base: string;

  constructor(@Inject(MERCHANT_ADMIN_CONFIG) config: MerchantAdminConfig) {
    const { fingerprintKey } = config.cardVault;
    if (!fingerprintKey) throw new Error('payment links need CARD_VAULT_FINGERPRINT_KEY (decision 259)');
    this.key = deriveLinkKey(fingerprintKey);
    this.base = config.checkoutPublicUrl.replace(/\/+$/, '');
  }

  hashFor(purpose: LinkPurpose, id: string): string {
    return linkHashOf(linkToken(this.key, purpose, id));
  }

  urlFor(purpose: LinkPurpose, id: string): string {
    return `${this.base}/${purpose === 'order' ? 'pay' : 'payout'}/${linkToken(this.key, purpose, id)}`;
  }

  /** The link, beside its expiry, while the link is live (the orders service says when). */
  withOrderLink(view: OrderView): OrderView {
    if (!view.data.expiresAt) return view;
    const { payments, refunds, ...rest } = view.data;
    return {
      ...view,
      data: { payments, ...(refunds ? { refunds } : {}), paymentLink: this.urlFor('order', view.id), ...rest },
    };
  }

  /** A payout's link, beside its expiry, while the payouts service says the link is live. */
  withPayoutLink(view: PayoutView): PayoutView {
    if (!view.data?.expiresAt) return view;
    return { ...view, data: { payoutLink: this.urlFor('payout', view.id), ...view.data } };
  }
}

/**
 * A redirect URL of a hosted page: https (http only where callback URLs may be, in local
 * development) on a domain the shop allow-listed or a subdomain of one. No open redirects.
 */
export function redirectUrlErrors(
  url: string | undefined,
  path: string,
  domains: readonly string[],
  config: Pick<MerchantAdminConfig, 'callbackUrlAllowInsecure'>,
): FieldError[] {
  if (url === undefined) return [];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ path, message: 'must be an absolute https URL' }];
  }
  const schemes = config.callbackUrlAllowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) return [{ path, message: 'must be an absolute https URL' }];
  if (parsed.username || parsed.password) return [{ path, message: 'must not carry credentials' }];
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (!domains.some((d) => host === d || host.endsWith(`.${d}`)))
    return [
      {
        path,
        message:
          domains.length === 0
            ? 'the shop has no allow-listed redirect domains (ask support to add yours)'
            : `must be on an allow-listed domain of the shop (${domains.join(', ')})`,
      },
    ];
  return [];
}
