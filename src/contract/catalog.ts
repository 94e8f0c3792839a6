import { z } from 'zod';
import { component, Currency, Money, openEnum, tolerant } from './common.js';
import { GUARANTEED } from './guaranteed.js';

export const CreditPackage = component(
  'CreditPackage',
  tolerant(
    () => ({
      code: z.string(),
      name: z.string(),
      credit_amount: z.int().min(1),
      price: Money,
      formatted_price: z.string(),
      currency: Currency,
      description: z.string(),
      sort_order: z.int(),
    }),
    GUARANTEED.CreditPackage,
  ),
);
export type CreditPackage = z.infer<typeof CreditPackage>;

export const CreditPackageList = component(
  'CreditPackageList',
  tolerant(
    () => ({
      packages: z.array(CreditPackage),
      limit: z.int().min(1).meta({ description: 'Most packages this list returns (50).' }),
    }),
    GUARANTEED.CreditPackageList,
  ),
);
export type CreditPackageList = z.infer<typeof CreditPackageList>;

export const PaymentMethodType = component('PaymentMethodType', z.enum(['invoice', 'balance', 'gateway']));

export const PaymentMethod = component(
  'PaymentMethod',
  tolerant(() => ({
    code: z.string().meta({ description: 'The value to send as `payment_method`.' }),
    name: z.string(),
    type: openEnum(PaymentMethodType),
    description: z.string(),
    requires_chat_link: z.boolean().meta({ description: 'True for `balance`: the order needs X-Chat-User-ID.' }),
    sandbox_allowed: z.boolean().meta({ description: 'Whether sandbox tokens may use it (only `invoice`).' }),
    is_default: z.boolean(),
    min_amount: Money,
    max_amount: Money,
    formatted_min_amount: z.string(),
    formatted_max_amount: z.string(),
    currency: Currency,
    sort_order: z.int(),
  })),
);
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const PaymentMethodList = component(
  'PaymentMethodList',
  tolerant(() => ({ payment_methods: z.array(PaymentMethod) })),
);
export type PaymentMethodList = z.infer<typeof PaymentMethodList>;
