import type { CreditPackageList, PaymentMethodList } from '../contract/catalog.js';
import type { Requester, RequestOptions } from './request.js';

export interface CatalogApi {
  /** Active credit packages, in display order. Public. */
  creditPackages(options?: RequestOptions): Promise<CreditPackageList>;
  /** Active payment methods. Public. */
  paymentMethods(options?: RequestOptions): Promise<PaymentMethodList>;
}

export function catalogApi(request: Requester): CatalogApi {
  return {
    creditPackages: (options) => request('listCreditPackages', { ...options }),
    paymentMethods: (options) => request('listPaymentMethods', { ...options }),
  };
}
