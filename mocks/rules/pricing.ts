/** The sandbox's pricing model, documented in docs/sandbox.md (Pricing) and the OpenAPI description. */
export const PRICE_PER_CREDIT = 120;
export const CURRENCY = 'IDR';
export const discountTiers = [
  { minCredits: 5_000, percent: 10 },
  { minCredits: 1_000, percent: 5 },
] as const;

export interface Quote {
  credit_amount: number;
  price: number;
  discount: number;
  total_amount: number;
}

export function quote(creditAmount: number): Quote {
  const price = creditAmount * PRICE_PER_CREDIT;
  const tier = discountTiers.find((t) => creditAmount >= t.minCredits);
  const discount = tier ? Math.floor((price * tier.percent) / 100) : 0;
  return { credit_amount: creditAmount, price, discount, total_amount: price - discount };
}
