import { randomUUID } from 'node:crypto';
import Joi from 'joi';
import { createTenant, startTestApi } from '../support/api';
import { createApp } from '../../api/app';

it('profiles the gateway', async () => {
  const api = await startTestApi();
  try {
    const t = await createTenant(api);
    const assets: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await api.request('/api/v1/assets', { method: 'POST', token: t.token, json: { name: `p${i}`, type: 'pump' } });
      assets.push(r.body.id);
      for (const p of ['temperature', 'pressure', 'vibration', 'speed']) {
        await api.request(`/api/v1/assets/${r.body.id}/baselines`, { method: 'POST', token: t.token, json: { parameter: p, baseline_value: 100, tolerance_percent: 10 } });
      }
    }
    const start = Date.now() - 86400000;
    const mk = (b: number) => Array.from({ length: 500 }, (_, i) => {
      const n = b * 500 + i;
      return { event_id: `e-${randomUUID()}`, asset_id: assets[Math.floor(n / 4) % 10], parameter: ['temperature', 'pressure', 'vibration', 'speed'][n % 4], value: 100 + Math.sin(n / 37) * 6 + (Math.floor(n / 2500) % 4 === 1 && n % 40 === 0 ? 20 : 0), timestamp: new Date(start + n * 1000).toISOString(), source: 'bench' };
    });
    // Joi validation alone
    const { routes } = createApp(api.deps);
    const route = routes.find((r) => r.fullPath === '/api/v1/machine/readings/batch')!;
    const body = { readings: mk(0) };
    let t0 = performance.now();
    for (let i = 0; i < 10; i++) route.body!.validate(body, { abortEarly: false, convert: true, allowUnknown: false });
    console.log('joi ms per batch', (performance.now() - t0) / 10);
    // queries per request
    const timings = new Map<string, number>();
    const log: { sql: string; ms: number }[] = [];
    const onQ = (q: any) => timings.set(q.__knexQueryUid, performance.now());
    const onR = (_r: any, q: any) => log.push({ sql: q.sql.slice(0, 90).replace(/\s+/g, ' '), ms: performance.now() - (timings.get(q.__knexQueryUid) ?? 0) });
    for (let b = 1; b < 10; b++) await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: t.token, json: { readings: mk(b) } });
    api.deps.db.on('query', onQ).on('query-response', onR);
    t0 = performance.now();
    let res: any;
    for (let b = 10; b < 30; b++) res = await api.request('/api/v1/machine/readings/batch', { method: 'POST', token: t.token, json: { readings: mk(b) } });
    const total = (performance.now() - t0) / 20;
    const { insertReadings } = await import('../../db/queries/readings');
    t0 = performance.now();
    for (let b = 30; b < 50; b++) await insertReadings(api.deps.db, t.tenantId, mk(b).map((r) => ({ asset_id: r.asset_id!, parameter: r.parameter!, ts: new Date(r.timestamp), value: r.value, unit: null, source: 'bench', sender_event_id: r.event_id })));
    console.log('plain ms per batch', ((performance.now() - t0) / 20).toFixed(1));
    api.deps.db.off('query', onQ).off('query-response', onR);
    console.log(res.status, JSON.stringify(res.body), 'total ms', total.toFixed(1), 'queries/batch', log.length / 20, 'sum ms/batch', (log.reduce((s, q) => s + q.ms, 0) / 20).toFixed(1));
    const agg = new Map<string, { n: number; ms: number }>();
    for (const q of log) { const k = q.sql.slice(0, 60); const e = agg.get(k) ?? { n: 0, ms: 0 }; e.n++; e.ms += q.ms; agg.set(k, e); }
    console.log([...agg.entries()].sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => `${v.n / 20}x ${(v.ms / 20).toFixed(2)}ms ${k}`).join('\n'));
  } finally {
    await api.close();
  }
}, 120_000);
