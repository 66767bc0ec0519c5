import { runAssetsBench } from '../../bench/assets';
import { createTenant, startTestApi } from '../support/api';

it('runs the assets bench', async () => {
  const api = await startTestApi();
  try {
    const t = await createTenant(api);
    const result = await runAssetsBench({ baseUrl: api.baseUrl, token: t.token, db: api.deps.db });
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await api.close();
  }
}, 120_000);
