import { randomUUID } from 'node:crypto';
import type { TestApi, TestTenant } from './api';

/**
 * A pump of the tenant with a vibration baseline of 2 ± 50 % (band edge 3), the limit condition
 * and predictive maintenance plans judge it by; its id.
 */
export async function pumpWithBaseline(api: TestApi, t: TestTenant): Promise<string> {
  const asset = await api.request('/api/v1/assets', { method: 'POST', token: t.token, json: { name: `Pump ${randomUUID().slice(0, 4)}`, type: 'pump' } });
  const baseline = await api.request(`/api/v1/assets/${asset.body.id}/baselines`, {
    method: 'POST',
    token: t.token,
    json: { parameter: 'vibration', baseline_value: 2, tolerance_percent: 50 },
  });
  if (asset.status !== 201 || baseline.status !== 201) throw new Error(`pump not created: ${asset.status} ${baseline.status}`);
  return asset.body.id;
}
