/** Formats an integer amount for display: `Rp 15.000` for IDR, with the currency's own separators. */
export function formatMoney(amount: number, currency: string): string {
  const sign = amount < 0 ? '-' : '';
  return `${sign}${styleOf(currency).symbol}${groupDigits(Math.abs(amount), currency)}`;
}

/** An integer's digits grouped in threes with the currency's separator, without its symbol: `1.700` for IDR. */
export function groupDigits(amount: number, currency: string): string {
  return groupThousands(amount, styleOf(currency).separator);
}

/** An integer's digits grouped in threes: `200,000`. */
export function groupThousands(count: number, separator = ','): string {
  const sign = count < 0 ? '-' : '';
  return sign + String(Math.abs(Math.trunc(count))).replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

const styleOf = (currency: string) => currencyStyles[currency] ?? { symbol: `${currency} `, separator: ',' };

const currencyStyles: Record<string, { symbol: string; separator: string }> = {
  IDR: { symbol: 'Rp ', separator: '.' },
};

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
}

export function parseTimestamp(timestamp: string): number {
  return Date.parse(`${timestamp.replace(' ', 'T')}Z`);
}
