import {
  CardBrands,
  MethodInstrumentTypes,
  providerEvent,
  ProviderEventKinds,
  ProviderStatuses,
} from '@payments/contracts';
import type { ProviderDefinition } from '@payments/providers/core';
import { PROVIDERS, providerOf } from './registry';

/**
 * The conformance run (ARCHITECTURE.md section 12): the same flows and faults for every registered
 * provider, as Hyperswitch's connectors share one test flow. A new folder that is registered runs
 * here without a line of its own; one that cannot pass cannot be registered.
 */
const every: [string, ProviderDefinition][] = [...PROVIDERS.entries()];

describe.each(every)('provider %s conforms', (code, p) => {
  it('when it is registered, then under its own code, with a name payers read', () => {
    expect(p.code).toBe(code);
    expect(code).toMatch(/^[a-z][a-z0-9-]{1,31}$/);
    expect(p.displayName.trim()).not.toBe('');
    expect(providerOf(code)).toBe(p);
  });

  it('when its capabilities are read, then each names only operations, instruments, brands and currencies we know', () => {
    const c = p.capabilities;
    expect(c.operations.length).toBeGreaterThan(0);
    for (const o of c.operations) expect(ProviderEventKinds).toContain(o);
    expect(c.instruments.length).toBeGreaterThan(0);
    for (const i of c.instruments) expect(MethodInstrumentTypes).toContain(i);
    for (const b of c.brands) expect(CardBrands).toContain(b);
    expect(c.currencies.length).toBeGreaterThan(0);
    for (const cur of c.currencies) expect(cur).toMatch(/^(\*|[A-Z0-9_]{3,32})$/);
  });

  it('when its status map is read, then every outcome maps to one of ours and a payment can succeed', () => {
    const values = Object.values(p.statusMap);
    expect(values.length).toBeGreaterThan(0);
    for (const s of values) expect(ProviderStatuses).toContain(s);
    expect(values).toContain('success');
  });

  it('when a setting it does not have is given, then the settings are refused naming the field', () => {
    const r = p.settings.parse({ notASetting: 'x' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path).join(' ')).toContain('notASetting');
  });

  it('when it reports a payment paid, then that is a success event of ours for the same reference, amount and currency', () => {
    const t = p.conformance.terms;
    expect(p.capabilities.currencies.some((c) => c === '*' || c === t.currency)).toBe(true);
    const r = p.conformance.paid(t, {});
    expect(r).toEqual({
      kind: 'event',
      event: expect.objectContaining({
        providerCode: code,
        kind: 'payment',
        reference: t.reference,
        status: 'success',
      }),
    });
    if (r.kind !== 'event') return;
    expect(Number(r.event.amount)).toBe(Number(t.amount));
    expect(r.event.currency).toBe(t.currency);
    // The event is exactly what provider.events carries.
    expect(providerEvent.safeParse({ ...r.event, receivedAt: '2026-11-27T10:00:00.000Z' }).success).toBe(true);
  });

  it('when the same report comes again, then it is the same event (one effect downstream)', () => {
    const t = p.conformance.terms;
    const a = p.conformance.paid(t, {});
    const b = p.conformance.paid(t, {});
    expect(b).toEqual(a);
  });

  it('when the report is forged (signed with a key that is not the shop’s), then it is refused', () => {
    expect(p.conformance.paid(p.conformance.terms, { forged: true })).toMatchObject({ kind: 'refused' });
  });

  it('when we send to it, then a client of its code; when it only calls us, then an inbound path of its own', () => {
    if (p.client) expect(p.client('http://127.0.0.1:9').code).toBe(code);
    if (p.inbound.kind === 'request-answer') {
      expect(p.inbound.paths.length).toBeGreaterThan(0);
      for (const path of p.inbound.paths) expect(path.startsWith(`/callbacks/${code}/`)).toBe(true);
    } else expect(p.client).toBeDefined();
  });
});

describe('the registry', () => {
  it('when a code is not registered, then the failure names it and the codes there are', () => {
    expect(() => providerOf('nope')).toThrow(/unknown provider "nope"; registered: sandbox, sandbox-b, click, payme/);
  });
});
