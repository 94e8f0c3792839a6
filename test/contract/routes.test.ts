import { describe, expect, it } from 'vitest';
import { endpointRoutes, endpoints, type Endpoint } from '../../src/contract/index.js';

describe('endpointRoutes', () => {
  it('has exactly one route per endpoint', () => {
    expect(Object.keys(endpointRoutes).sort()).toEqual(endpoints.map((e) => e.id).sort());
  });

  it.each(endpoints.map((e) => [e.id, e as Endpoint] as const))('%s: the endpoint table spreads the same route', (id, endpoint) => {
    const { method, path, auth, rateClass } = endpoint;
    // `queried` says there is a query schema: the sandbox's pipeline loads the schemas only for such an endpoint.
    const queried = endpoint.query === undefined ? {} : { queried: true };
    expect({ method, path, auth, rateClass, ...queried }).toEqual(endpointRoutes[id]);
  });

  it("every endpoint's usual success is 200 but createOrder's, whose route always says its status", () => {
    // The sandbox's pipeline answers 200 when a route names no status (mocks/assembly/pipeline.ts).
    expect(endpoints.filter((e) => e.success[0] !== 200).map((e) => e.id)).toEqual(['createOrder']);
  });
});
