import { rateErrors } from '@payments/ledger-domain';

/** One pair the sandbox feed keeps in force: 1 `base` = `rate` `quote`. */
export interface SandboxRate {
  base: string;
  quote: string;
  rate: string;
}

/**
 * `LEDGER_SANDBOX_RATES`: a JSON object of pairs to rates, `{"USD/USDT-TRC20": "0.998"}`, each
 * pair two books currencies and each rate a decimal string above zero (the rules of an operator's
 * rate, decision 303). A rate written as a JSON number is refused: it would be a float.
 */
export function parseSandboxRates(raw: string): { value: SandboxRate[] } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { problem: 'must be a JSON object of pairs to rates, {"USD/USDT-TRC20": "0.998"}' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { problem: 'must be a JSON object of pairs to rates, {"USD/USDT-TRC20": "0.998"}' };
  const rates: SandboxRate[] = [];
  const problems: string[] = [];
  for (const [pair, rate] of Object.entries(parsed)) {
    const [base, quote, extra] = pair.split('/');
    if (!base || !quote || extra !== undefined) {
      problems.push(`${pair}: a pair is written BASE/QUOTE`);
      continue;
    }
    if (typeof rate !== 'string') {
      problems.push(`${pair}: the rate must be a decimal string ("0.998"), not ${typeof rate}`);
      continue;
    }
    const errors = rateErrors({ base, quote, rate, validFrom: new Date(0).toISOString() });
    if (errors.length > 0) problems.push(...errors.map((e) => `${pair}: ${e.path} ${e.message}`));
    else rates.push({ base, quote, rate });
  }
  return problems.length > 0 ? { problem: problems.join('; ') } : { value: rates };
}
