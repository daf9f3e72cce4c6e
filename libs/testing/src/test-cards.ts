/**
 * Card numbers that payment providers publish for testing, by scheme, with where each is published
 * (test data only; decision 258). The card-number rule must refuse every one of them, plain,
 * spaced and dashed, in every free-text field and as an id.
 */
export const DOCUMENTED_TEST_CARDS: readonly { scheme: string; number: string; source: string }[] = [
  // Stripe, docs.stripe.com/testing
  { scheme: 'visa', number: '4242424242424242', source: 'Stripe' },
  { scheme: 'visa', number: '4000056655665556', source: 'Stripe (debit)' },
  { scheme: 'visa', number: '4012888888881881', source: 'Stripe, Braintree' },
  { scheme: 'mastercard', number: '5555555555554444', source: 'Stripe, Braintree' },
  { scheme: 'mastercard', number: '2223003122003222', source: 'Stripe (2-series)' },
  { scheme: 'mastercard', number: '5200828282828210', source: 'Stripe (debit)' },
  { scheme: 'mastercard', number: '5105105105105100', source: 'Stripe (prepaid)' },
  { scheme: 'amex', number: '378282246310005', source: 'Stripe, Braintree' },
  { scheme: 'amex', number: '371449635398431', source: 'Stripe, Braintree' },
  { scheme: 'discover', number: '6011111111111117', source: 'Stripe, Braintree' },
  { scheme: 'discover', number: '6011000990139424', source: 'Stripe' },
  { scheme: 'discover', number: '6011981111111113', source: 'Stripe (debit)' },
  { scheme: 'discover', number: '6555900000604105', source: 'Stripe (BCcard and DinaCard)' },
  { scheme: 'diners', number: '3056930009020004', source: 'Stripe' },
  { scheme: 'diners', number: '36227206271667', source: 'Stripe (14 digits)' },
  { scheme: 'jcb', number: '3566002020360505', source: 'Stripe' },
  { scheme: 'unionpay', number: '6200000000000005', source: 'Stripe' },
  { scheme: 'unionpay', number: '6200000000000047', source: 'Stripe (debit)' },
  { scheme: 'unionpay', number: '6205500000000000004', source: 'Stripe (19 digits)' },
  // Braintree, developer.paypal.com/braintree/docs/guides/credit-cards/testing-go-live
  { scheme: 'visa', number: '4111111111111111', source: 'Braintree' },
  { scheme: 'visa', number: '4005519200000004', source: 'Braintree' },
  { scheme: 'visa', number: '4009348888881881', source: 'Braintree' },
  { scheme: 'visa', number: '4012000033330026', source: 'Braintree' },
  { scheme: 'visa', number: '4012000077777777', source: 'Braintree' },
  { scheme: 'visa', number: '4217651111111119', source: 'Braintree' },
  { scheme: 'visa', number: '4500600000000061', source: 'Braintree' },
  { scheme: 'mastercard', number: '2223000048400011', source: 'Braintree' },
  { scheme: 'diners', number: '36259600000004', source: 'Braintree' },
  { scheme: 'discover', number: '6011000991300009', source: 'Braintree' },
  { scheme: 'jcb', number: '3530111333300000', source: 'Braintree' },
  { scheme: 'maestro', number: '6304000000000000', source: 'Braintree' },
  { scheme: 'unionpay', number: '6243030000000001', source: 'Braintree' },
  { scheme: 'unionpay', number: '6221261111117766', source: 'Braintree' },
  { scheme: 'unionpay', number: '6223164991230014', source: 'Braintree' },
  // Older Stripe and PayPal lists, Authorize.net
  { scheme: 'visa', number: '4222222222222', source: 'PayPal (13 digits)' },
  { scheme: 'diners', number: '30569309025904', source: 'Stripe (former list)' },
  { scheme: 'diners', number: '38520000023237', source: 'Stripe (former list)' },
  { scheme: 'amex', number: '370000000000002', source: 'Authorize.net' },
  { scheme: 'discover', number: '6011000000000012', source: 'Authorize.net' },
  { scheme: 'visa', number: '4007000000027', source: 'Authorize.net (13 digits)' },
  { scheme: 'jcb', number: '3088000000000017', source: 'Authorize.net' },
  { scheme: 'diners', number: '38000000000006', source: 'Authorize.net' },
  // Barclaycard Smartpay Fuse (Cybersource) testing guide
  { scheme: 'mastercard', number: '2222420000001113', source: 'Barclaycard' },
  { scheme: 'jcb', number: '3566111111111113', source: 'Barclaycard' },
  { scheme: 'maestro', number: '50339619890917', source: 'Barclaycard (international, 14 digits)' },
  { scheme: 'maestro', number: '586824160825533338', source: 'Barclaycard (international, 18 digits)' },
  { scheme: 'maestro', number: '6759411100000008', source: 'Barclaycard (UK domestic)' },
  { scheme: 'maestro', number: '6759560045005727054', source: 'Barclaycard (UK domestic, 19 digits)' },
  { scheme: 'maestro', number: '5641821111166669', source: 'Barclaycard (UK domestic)' },
  // Payme (Paycom) sandbox, developer.help.paycom.uz: Uzcard
  { scheme: 'uzcard', number: '8600060921090842', source: 'Payme sandbox' },
  { scheme: 'uzcard', number: '8600143417770323', source: 'Payme sandbox' },
  { scheme: 'uzcard', number: '8600134301849596', source: 'Payme sandbox' },
  { scheme: 'uzcard', number: '8600495473316478', source: 'Payme sandbox' },
  { scheme: 'uzcard', number: '8600069195406311', source: 'Payme sandbox' },
  // Mir: Prodamus, Tochka, Payture and T-Bank test environments
  { scheme: 'mir', number: '2200000000000053', source: 'Prodamus' },
  { scheme: 'mir', number: '2200111753579001', source: 'Tochka' },
  { scheme: 'mir', number: '2200117996077364', source: 'Tochka' },
  { scheme: 'mir', number: '2202208311110010', source: 'Payture' },
  { scheme: 'mir', number: '2201382000000021', source: 'T-Bank' },
  { scheme: 'maestro', number: '6390028880000000010', source: 'Payture (19 digits)' },
  // HUMO: no public provider list found; this repository's sandbox card (docs/checkout.md)
  { scheme: 'humo', number: '9860123456789015', source: 'docs/checkout.md (provider sandbox)' },
];

/** How a person types a card: groups of four (the last shorter), or 4-6-5 and 4-6-4 for 15 and 14 digits. */
export function groupedAsPrinted(number: string, separator: string): string {
  const groups =
    number.length === 15 || number.length === 14
      ? [number.slice(0, 4), number.slice(4, 10), number.slice(10)]
      : (number.match(/.{1,4}/g) ?? []);
  return groups.join(separator);
}
