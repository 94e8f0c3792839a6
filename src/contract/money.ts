/** Formats an integer amount for display: `Rp 15.000` for IDR, with the currency's own separators. */
export function formatMoney(amount: number, currency: string): string {
  const style = currencyStyles[currency] ?? { symbol: `${currency} `, separator: ',' };
  const sign = amount < 0 ? '-' : '';
  const digits = String(Math.abs(Math.trunc(amount))).replace(/\B(?=(\d{3})+(?!\d))/g, style.separator);
  return `${sign}${style.symbol}${digits}`;
}

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
