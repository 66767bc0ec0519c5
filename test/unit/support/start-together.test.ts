/** The tests' startTogether: what started is stopped when another start fails, so nothing keeps Jest alive. */
import { startTogether } from '../../support/start-together';

const server = (name: string, stopped: string[]) => ({ name, stop: async () => void stopped.push(name) });
const closable = (name: string, stopped: string[]) => ({ name, close: async () => void stopped.push(name) });

it('answers every server in the order asked when all start', async () => {
  const stopped: string[] = [];
  const slow = new Promise<ReturnType<typeof server>>((resolve) => setImmediate(() => resolve(server('slow', stopped))));
  const [a, b, c] = await startTogether(slow, Promise.resolve(closable('fast', stopped)), Promise.resolve(server('third', stopped)));
  expect([a.name, b.name, c.name]).toEqual(['slow', 'fast', 'third']);
  expect(stopped).toEqual([]);
});

it('stops the servers that started, with stop() or close(), and rethrows the failure', async () => {
  const stopped: string[] = [];
  const failure = new Error('address already in use');
  await expect(startTogether(Promise.resolve(server('temporal', stopped)), Promise.reject(failure), Promise.resolve(closable('receiver', stopped)))).rejects.toBe(failure);
  expect(stopped.sort()).toEqual(['receiver', 'temporal']);
});
