// @ts-check
/** Summary statistics for timing samples. */

/** @param {readonly number[]} values */
export function median(values) {
  return quantile(values, 0.5);
}

/**
 * Linear-interpolated quantile (q in [0, 1]) of unsorted values.
 * @param {readonly number[]} values
 * @param {number} q
 */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const lower = /** @type {number} */ (sorted[low]);
  const upper = /** @type {number} */ (sorted[high]);
  return lower + (upper - lower) * (position - low);
}

/**
 * @param {number} value
 * @param {number} digits
 */
export function round(value, digits = 2) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
