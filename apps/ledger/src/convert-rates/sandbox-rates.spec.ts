import { EnvReader } from '@payments/platform';
import { loadLedgerConfig } from '../config';
import { parseSandboxRates } from './sandbox-rates';

const base = { DATABASE_URL: 'postgres://unused', KAFKA_BROKERS: '127.0.0.1:1' };

describe('LEDGER_SANDBOX_RATES, the sandbox rates feed (decision 305)', () => {
  it('when it is not set, then the feed is off: no pairs', () => {
    expect(loadLedgerConfig(new EnvReader(base)).sandboxRates).toEqual([]);
  });

  it('when it is set without LEDGER_SANDBOX_ENVIRONMENT=true, then the ledger does not start, naming both', () => {
    const rates = '{"USD/EUR": "0.92"}';
    for (const flag of [{}, { LEDGER_SANDBOX_ENVIRONMENT: 'false' }])
      expect(() => loadLedgerConfig(new EnvReader({ ...base, ...flag, LEDGER_SANDBOX_RATES: rates }))).toThrow(
        /LEDGER_SANDBOX_RATES needs LEDGER_SANDBOX_ENVIRONMENT=true/,
      );
    const sandbox = { ...base, LEDGER_SANDBOX_ENVIRONMENT: 'true', LEDGER_SANDBOX_RATES: rates };
    expect(loadLedgerConfig(new EnvReader(sandbox)).sandboxRates).toEqual([
      { base: 'USD', quote: 'EUR', rate: '0.92' },
    ]);
  });

  it('when it names pairs and decimal rates, then each pair is kept', () => {
    expect(parseSandboxRates('{"USD/USDT-TRC20": "0.998", "EUR/USD": "1.08"}')).toEqual({
      value: [
        { base: 'USD', quote: 'USDT-TRC20', rate: '0.998' },
        { base: 'EUR', quote: 'USD', rate: '1.08' },
      ],
    });
  });

  it('when a rate is a JSON number, a pair is malformed or a currency unknown, then the ledger does not start, naming each', () => {
    const bad = '{"USD/EUR": 0.92, "USDEUR": "1", "USD/XYZ": "1", "EUR/USD": "0"}';
    const env = { ...base, LEDGER_SANDBOX_ENVIRONMENT: 'true', LEDGER_SANDBOX_RATES: bad };
    expect(() => loadLedgerConfig(new EnvReader(env))).toThrow(
      /LEDGER_SANDBOX_RATES USD\/EUR: the rate must be a decimal string \("0\.998"\), not number; USDEUR: a pair is written BASE\/QUOTE; USD\/XYZ: quote currency XYZ is not in the currency registry.*; EUR\/USD: rate must be greater than 0/,
    );
    expect(parseSandboxRates('[1]')).toEqual({ problem: expect.stringContaining('must be a JSON object') });
  });
});
