import { describe, expect, it } from 'vitest';
import { endpointRoutes, endpoints } from '../../src/contract/index.js';

describe('endpointRoutes', () => {
  it('has exactly one route per endpoint', () => {
    expect(Object.keys(endpointRoutes).sort()).toEqual(endpoints.map((e) => e.id).sort());
  });

  it.each(endpoints.map((e) => [e.id, e] as const))('%s: the endpoint table spreads the same route', (id, endpoint) => {
    const { method, path, auth, rateClass } = endpoint;
    expect({ method, path, auth, rateClass }).toEqual(endpointRoutes[id]);
  });
});
