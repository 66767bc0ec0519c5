import { createApp } from '../../../api/app';
import type { AppDeps } from '../../../api/context';
import { createContractCheck } from '../../support/response-contract';

// The routes only: no dependency is touched while building the document.
const { routes } = createApp({ config: { api: { trustedProxyHops: 0 }, deprecations: [], metricsToken: null }, metrics: { registry: null } } as unknown as AppDeps);
const contract = createContractCheck(routes);

describe('the response contract check of the API tests', () => {
  it('refuses a body that does not match its documented schema, and an undocumented status', () => {
    expect(contract.violation('GET', '/api/v1/assets', 200, 'application/json', { items: 'nope' })).toMatch(/items must be array/);
    expect(contract.violation('GET', '/api/v1/assets', 299, 'application/json', {})).toBe('status 299 is not documented for GET /api/v1/assets');
  });

  it('matches static paths before templated ones, and accepts what the document says', () => {
    expect(contract.violation('GET', '/api/v1/assets/tree', 200, 'application/json', 5)).toMatch(/must be object/);
    expect(contract.violation('GET', '/api/v1/assets', 200, 'application/json', { items: [], total: 0, skip: 0, limit: 20 })).toBeNull();
    expect(
      contract.violation('GET', '/api/v1/assets/6f1c2a4e-0b7d-4c1e-9a55-2d3b8e7f9a10', 404, 'application/json', { detail: 'x', error_code: 'NOT_FOUND', request_id: 'r' }),
    ).toBeNull();
  });
});
