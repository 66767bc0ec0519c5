import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import services = require('../../scripts/lib/services.cjs');
import { createTimeSkippingEnv, startDevServerForTest } from '../support/temporal-env';

const DAY_MS = 86_400_000;
const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

describe('Temporal test harness', () => {
  it('the time-skipping server skips a day at once', async () => {
    const env = await createTimeSkippingEnv();
    try {
      const serverBefore = await env.currentTimeMs();
      const wallBefore = Date.now();
      await env.sleep('1 day');
      expect((await env.currentTimeMs()) - serverBefore).toBeGreaterThanOrEqual(DAY_MS);
      expect(Date.now() - wallBefore).toBeLessThan(10_000);
    } finally {
      await env.teardown();
    }
  });

  it('the dev server for tests has the search attributes of infra/search-attributes.json and frees its port', async () => {
    const file = path.resolve(__dirname, '../../infra/search-attributes.json');
    const wanted = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; type: string }[];
    const server = await startDevServerForTest();
    const port = Number(server.address.split(':')[1]);
    try {
      const connection = await Connection.connect({ address: server.address });
      try {
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: server.namespace });
        for (const { name, type } of wanted) {
          expect(type).toBe('Keyword');
          expect(customAttributes?.[name]).toBe(KEYWORD);
        }
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
    expect(await services.isPortFree(port)).toBe(true);
  });
});
