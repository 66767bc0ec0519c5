import fs from 'node:fs';

/** What the seed leaves for the gateway and the receiver (DEMO_STATE_FILE, in .data/ under `npm run up`). */
export interface DemoState {
  webhookId: string;
  /** The webhook's signing secret, shown once by the API: the receiver verifies with it. */
  webhookSecret: string;
  /** Asset ids by name (demo/plant.ts). */
  assetIds: Record<string, string>;
  runHoursPlanId: string;
}

export function readDemoState(file: string): DemoState | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as DemoState;
  } catch {
    return null;
  }
}
