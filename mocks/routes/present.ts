import { formatMoney as money, formatTimestamp as ts } from '../../src/contract/money.js';
import { pollIntervals } from '../../src/contract/timing.js';
import { isFinalPaymentStatus } from '../../src/contract/values.js';
import type {
  ArticleDetail,
  ArticleSummary,
  BalanceTransaction,
  CreditPackage,
  Deposit,
  Invoice,
  InvoiceStatus,
  Order,
  OrderSummary,
  PaymentMethod,
} from '../../src/contract/index.js';
import type * as R from '../store/records.js';
import { SANDBOX_PATHS } from './paths.js';

/** Turns stored records into the contract's shapes. `base` is the origin written into links. */
const tsOrNull = (ms: number | null) => (ms === null ? null : ts(ms));

export const invoiceUrl = (base: string, code: string) => `${base}${SANDBOX_PATHS.invoicePage}${code}`;

export function creditPackage(p: R.CreditPackageRecord): CreditPackage {
  return {
    code: p.code,
    name: p.name,
    credit_amount: p.credit_amount,
    price: p.price,
    formatted_price: money(p.price, p.currency),
    currency: p.currency,
    description: p.description,
    sort_order: p.sort_order,
  };
}

export function paymentMethod(m: R.PaymentMethodRecord, currency: string): PaymentMethod {
  return {
    code: m.code,
    name: m.name,
    type: m.type,
    description: m.description,
    requires_chat_link: m.type === 'balance',
    sandbox_allowed: m.type === 'invoice',
    is_default: m.code === 'invoice',
    min_amount: m.min_amount,
    max_amount: m.max_amount,
    formatted_min_amount: money(m.min_amount, currency),
    formatted_max_amount: money(m.max_amount, currency),
    currency,
    sort_order: m.sort_order,
  };
}

export function articleSummary(a: R.ArticleRecord, base: string): ArticleSummary {
  return {
    title: a.title,
    slug: a.slug,
    category: a.category,
    excerpt: a.excerpt,
    cover_image: `${base}/images/articles/${a.slug}.jpg`,
    article_url: `${base}/articles/${a.slug}`,
    published_at: ts(a.published_at),
  };
}

export function articleDetail(a: R.ArticleRecord, base: string): ArticleDetail {
  return Object.assign(articleSummary(a, base), { content: a.content, author: a.author, tags: [...a.tags], updated_at: ts(a.updated_at) });
}

export function orderSummary(o: R.OrderRecord, invoice: R.InvoiceRecord): OrderSummary {
  return {
    invoice_code: o.invoice_code,
    status: o.status,
    payment_status: invoice.payment_status,
    order_type: o.order_type,
    platform_username: o.platform_username,
    credit_amount: o.credit_amount,
    total_amount: o.total_amount,
    formatted_total_amount: money(o.total_amount, invoice.currency),
    currency: invoice.currency,
    created_at: ts(o.created_at),
  };
}

export function order(o: R.OrderRecord, invoice: R.InvoiceRecord, base: string): Order {
  // Object.assign, not `{ ...orderSummary(o, invoice), … }`. In node 20, an object literal that starts with a
  // spread and then adds properties is promoted to the old generation whenever that generation is large (V8's
  // clone-object path), so with a 100k-order store every answer built that way stayed until a full collection:
  // 30k GET /me/orders/{invoice} grew the heap by 180 MB. The sandbox's per-request code avoids the pattern.
  return Object.assign(orderSummary(o, invoice), {
    place_id: o.place_id,
    platform_pass_id: o.platform_pass_id,
    price: o.price,
    formatted_price: money(o.price, invoice.currency),
    discount: o.discount,
    formatted_discount: money(o.discount, invoice.currency),
    payment_method: o.payment_method,
    client_reference: o.client_reference,
    environment: o.environment,
    invoice_url: invoiceUrl(base, o.invoice_code),
    updated_at: ts(o.updated_at),
    paid_at: tsOrNull(o.paid_at),
    completed_at: tsOrNull(o.completed_at),
  });
}

export function invoice(i: R.InvoiceRecord, o: R.OrderRecord | undefined, base: string): Invoice {
  return {
    invoice_code: i.invoice_code,
    type: i.type,
    payment_status: i.payment_status,
    amount: i.amount,
    formatted_amount: money(i.amount, i.currency),
    currency: i.currency,
    payment_method: i.payment_method,
    payment_url: i.payment_url,
    invoice_url: invoiceUrl(base, i.invoice_code),
    created_at: ts(i.created_at),
    expires_at: ts(i.expires_at),
    paid_at: tsOrNull(i.paid_at),
    order:
      o === undefined
        ? null
        : { status: o.status, order_type: o.order_type, platform_username: o.platform_username, credit_amount: o.credit_amount },
  };
}

export function invoiceStatus(i: R.InvoiceRecord, o: R.OrderRecord | undefined): InvoiceStatus {
  const final = isFinalPaymentStatus(i.payment_status);
  return {
    invoice_code: i.invoice_code,
    type: i.type,
    payment_status: i.payment_status,
    order_status: o?.status ?? null,
    is_final: final,
    amount: i.amount,
    formatted_amount: money(i.amount, i.currency),
    expires_at: ts(i.expires_at),
    paid_at: tsOrNull(i.paid_at),
    // A hint to poll again belongs to a status that can still change; a final one has nothing left to wait for.
    ...(final ? {} : { poll_after_seconds: pollIntervals.invoiceStatus.recommended }),
  };
}

export function deposit(d: R.DepositRecord, i: R.InvoiceRecord, base: string): Deposit {
  return {
    invoice_code: d.invoice_code,
    amount: i.amount,
    formatted_amount: money(i.amount, i.currency),
    currency: i.currency,
    payment_method: i.payment_method,
    payment_status: i.payment_status,
    invoice_url: invoiceUrl(base, d.invoice_code),
    created_at: ts(d.created_at),
    expires_at: ts(i.expires_at),
    paid_at: tsOrNull(i.paid_at),
  };
}

export function transaction(t: R.TransactionRecord, currency: string): BalanceTransaction {
  return {
    id: t.id,
    type: t.type,
    amount: t.amount,
    formatted_amount: money(t.amount, currency),
    balance_after: t.balance_after,
    formatted_balance_after: money(t.balance_after, currency),
    currency,
    description: t.description,
    reference: t.reference,
    created_at: ts(t.created_at),
  };
}
