import { describe, expect, it } from 'vitest';
import { Store } from '../../mocks/store/store.js';

describe('invoice codes', () => {
  it('carry the UTC day of each invoice, whichever day came before, and one running number', () => {
    const store = new Store();
    const at = (iso: string) => store.nextInvoiceCode(Date.parse(iso));
    expect(at('2026-11-25T23:59:59.999Z')).toBe('INV20261125000001');
    expect(at('2026-11-25T08:00:00.000Z')).toBe('INV20261125000002');
    expect(at('2026-11-26T00:00:00.000Z')).toBe('INV20261126000003');
    expect(at('2026-11-24T12:00:00.000Z')).toBe('INV20261124000004');
    expect(at('1969-12-31T23:59:59.999Z')).toBe('INV19691231000005');
    expect(store.nextInvoiceCode(0.5)).toBe('INV19700101000006');
    expect(store.nextInvoiceCode(-0.5)).toBe('INV19700101000007');
    expect(at('1969-12-31T12:00:00.000Z')).toBe('INV19691231000008');
  });

  it('throw for a time no Date holds, each time', () => {
    const store = new Store();
    expect(store.nextInvoiceCode(8.64e15)).toBe('INV+27576009000001');
    expect(() => store.nextInvoiceCode(8.64e15 + 1)).toThrow(RangeError);
    expect(() => store.nextInvoiceCode(Number.NaN)).toThrow(RangeError);
  });
});
