import { canonicalCurrency, checkTokenStandard, findCurrency } from '@payments/money';
import type { CreateOrderCommand } from '@payments/contracts';
import { FieldError } from '@payments/platform';
import type { CreateOrderDto } from './create-order.dto';

/** Rules across fields that a field's own validator cannot see. */
export function crossFieldErrors(body: CreateOrderDto): FieldError[] {
  const errors: FieldError[] = [];
  if (body.paymentSettings?.walletType !== undefined && body.instrumentType !== 'wallet') {
    errors.push({ path: 'paymentSettings.walletType', message: 'applies only with instrumentType = wallet' });
  }
  if (body.payer?.bankTransferData !== undefined && body.instrumentType !== 'bank_transfer') {
    errors.push({ path: 'payer.bankTransferData', message: 'applies only with instrumentType = bank_transfer' });
  }
  const top = body.redirectUrls;
  const psp = body.paymentSettings?.redirectUrls;
  for (const k of ['success', 'failure'] as const)
    if (top?.[k] !== undefined && psp?.[k] !== undefined && top[k] !== psp[k])
      errors.push({
        path: `paymentSettings.redirectUrls.${k}`,
        message: `differs from redirectUrls.${k}: give it once`,
      });
  if (body.paymentSettings?.timeLimit !== undefined && body.timeLimit !== undefined)
    errors.push({
      path: 'paymentSettings.timeLimit',
      message: 'give timeLimit once: seconds at the top, or this instant',
    });
  return errors;
}

/** The redirect URLs wherever the merchant gave them: top level (ours) or paymentSettings (the PSP's). */
export function redirectUrlsOf(body: CreateOrderDto): { success?: string; failure?: string } | undefined {
  const merged = { ...body.paymentSettings?.redirectUrls, ...body.redirectUrls };
  const urls = {
    ...(merged.success ? { success: merged.success } : {}),
    ...(merged.failure ? { failure: merged.failure } : {}),
  };
  return Object.keys(urls).length > 0 ? urls : undefined;
}

const DEFAULT_TIME_LIMIT_SECONDS = 1800;

/**
 * When the link expires: `timeLimit` seconds from now (default 1,800), or the PSP's instant in
 * `paymentSettings.timeLimit`, which must be 60 s to 24 h away (the range of the seconds).
 */
export function linkExpiry(body: CreateOrderDto, nowMs: number): { expiresAt: string } | { error: FieldError } {
  const instant = body.paymentSettings?.timeLimit;
  if (instant === undefined)
    return { expiresAt: new Date(nowMs + (body.timeLimit ?? DEFAULT_TIME_LIMIT_SECONDS) * 1000).toISOString() };
  // Without Z or an offset, Date.parse reads the instant in the server's local time (decision 193).
  if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(instant))
    return { error: { path: 'paymentSettings.timeLimit', message: 'must end with Z or a UTC offset such as +05:00' } };
  const at = Date.parse(instant);
  if (!Number.isFinite(at) || at - nowMs < 60_000 || at - nowMs > 86_400_000)
    return { error: { path: 'paymentSettings.timeLimit', message: 'must be 60 seconds to 24 hours from now' } };
  return { expiresAt: new Date(at).toISOString() };
}

/**
 * The command for the orders service: currencies in their current names (renamed asset codes
 * are accepted and answered with the new name), and a merchant-balance token standard dropped
 * where the spec says it is ignored (fiat).
 */
export function toCreateOrderCommand(
  orderId: string,
  shopId: string,
  body: CreateOrderDto,
  hosted?: { linkHash: string; expiresAt: string },
): CreateOrderCommand {
  const balance = body.recipient?.merchantBalance;
  const balanceCurrency = balance ? findCurrency(balance.currency) : undefined;
  const balanceTokenStandard =
    balance && balanceCurrency?.kind === 'found'
      ? checkTokenStandard(balanceCurrency.currency, balance.tokenStandard)
      : undefined;
  return {
    orderId,
    shopId,
    merchantOrderId: body.order.merchantOrderId,
    cost: {
      amount: body.order.cost.amount,
      currency: canonicalCurrency(body.order.cost.currency),
      ...(body.order.cost.tokenStandard ? { tokenStandard: body.order.cost.tokenStandard } : {}),
    },
    ...(body.order.description ? { description: body.order.description } : {}),
    ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
    ...(hosted
      ? {
          hosted: {
            ...hosted,
            ...(body.paymentPageDesign?.locale ? { locale: body.paymentPageDesign.locale } : {}),
            ...(redirectUrlsOf(body) ? { redirectUrls: redirectUrlsOf(body) } : {}),
          },
        }
      : {}),
    ...(body.instrumentType ? { instrumentType: body.instrumentType } : {}),
    ...(body.paymentSettings?.walletType ? { paymentSettings: { walletType: body.paymentSettings.walletType } } : {}),
    ...(body.payer ? { payer: JSON.parse(JSON.stringify(body.payer)) as Record<string, unknown> } : {}),
    ...(balance
      ? {
          recipient: {
            merchantBalance: {
              currency: canonicalCurrency(balance.currency),
              ...(balanceTokenStandard?.kind === 'ok' && balanceTokenStandard.tokenStandard
                ? { tokenStandard: balanceTokenStandard.tokenStandard }
                : {}),
            },
          },
        }
      : {}),
  };
}
