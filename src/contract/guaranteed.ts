/**
 * What the interface document guarantees in answers, in one place. The document shows the fields of a credit package,
 * an article summary, and the order-creation answer; every other record ("profile, dashboard summary, balance, balance
 * transaction, deposit, order record, invoice detail, invoice status record, payment-method record, article detail and
 * health record: not shown") guarantees nothing. The contract's response schemas require exactly these fields and read
 * every other one as optional (tolerant readers); the lean sandbox (`createSandbox({ lean: true })`) sends these plus
 * `LEAN_KEPT` and nothing else.
 */
export const GUARANTEED = {
  CreditPackage: ['code', 'name', 'credit_amount', 'price', 'formatted_price', 'currency', 'description', 'sort_order'],
  CreditPackageList: ['packages', 'limit'],
  ArticleSummary: ['title', 'slug', 'category', 'excerpt', 'cover_image', 'article_url', 'published_at'],
  ArticleList: ['articles', 'limit'],
  /**
   * `invoice.order` is "present in one published response shape", `gateway` "null in one published shape": not
   * guaranteed. `environment` is listed without such a word (only its value is: `sandbox` in a sandbox response), so
   * the lean sandbox keeps it (LEAN_KEPT); the reader still takes an answer without it.
   */
  CreateOrderResult: ['invoice', 'idempotent'],
  CreatedInvoice: [
    'invoice_code',
    'type',
    'payment_status',
    'amount',
    'formatted_amount',
    'currency',
    'payment_method',
    'payment_url',
    'invoice_url',
  ],
  /** When `order` is there, the document lists these four. */
  CreatedOrder: ['status', 'order_type', 'platform_username', 'credit_amount'],
} as const satisfies Record<string, readonly string[]>;

/**
 * What a believable minimal server sends on the records the document does not show: the fields the document names for
 * the same resource elsewhere (an invoice's fields from the invoice table, an order's from its `order` object, an
 * article's from its summary, a token check's `mode`), and the list and wrapper keys without which an answer would say
 * nothing. Not guaranteed (the reader keeps them optional); everything else we designed (pagination, timestamps,
 * `is_final`, `poll_after_seconds`, …) is dropped by the lean sandbox.
 */
export const LEAN_KEPT = {
  CreateOrderResult: ['environment'],
  TokenValidation: ['mode'],
  ProfileData: ['user'],
  TransactionList: ['transactions'],
  DepositList: ['deposits'],
  DepositData: ['deposit'],
  Deposit: ['invoice_code', 'payment_status', 'amount', 'formatted_amount', 'currency', 'payment_method', 'invoice_url'],
  PaymentMethodList: ['payment_methods'],
  ArticleData: ['article'],
  ArticleDetail: ['title', 'slug', 'category', 'excerpt', 'cover_image', 'article_url', 'published_at'],
  OrderList: ['orders'],
  OrderData: ['order'],
  OrderSummary: ['invoice_code', 'status', 'order_type', 'platform_username', 'credit_amount'],
  Order: ['invoice_code', 'status', 'order_type', 'platform_username', 'credit_amount', 'invoice_url'],
  InvoiceData: ['invoice'],
  Invoice: [
    'invoice_code',
    'type',
    'payment_status',
    'amount',
    'formatted_amount',
    'currency',
    'payment_method',
    'payment_url',
    'invoice_url',
    'order',
  ],
  InvoiceOrder: ['status', 'order_type', 'platform_username', 'credit_amount'],
  InvoiceStatus: ['invoice_code', 'type', 'payment_status', 'amount', 'formatted_amount'],
} as const satisfies Record<string, readonly string[]>;

export type GuaranteedComponent = keyof typeof GUARANTEED;
