import type { DashboardSummary, Health, ProfileData } from '../contract/account.js';
import type { Requester, RequestOptions } from './request.js';

export interface AccountApi {
  /** The token owner's profile. */
  profile(options?: RequestOptions): Promise<ProfileData>;
  /** Balance, order counts and recent orders. Refresh no sooner than `refresh_after_seconds`. */
  dashboard(options?: RequestOptions): Promise<DashboardSummary>;
}

export function accountApi(request: Requester): AccountApi {
  return {
    profile: (options) => request('getProfile', { ...options }),
    dashboard: (options) => request('getDashboardSummary', { ...options }),
  };
}

/** API health. Public. */
export function healthApi(request: Requester): (options?: RequestOptions) => Promise<Health> {
  return (options) => request('getHealth', { ...options });
}
