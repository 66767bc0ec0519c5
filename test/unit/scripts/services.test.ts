import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import services = require('../../../scripts/lib/services.cjs');

function listen(port = 0): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('ports', () => {
  it('getFreePorts hands out distinct ports that can be bound', async () => {
    const ports = await services.getFreePorts(4);
    expect(new Set(ports).size).toBe(4);
    const servers = await Promise.all(ports.map((port) => listen(port)));
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('startOnFreePort starts again on another port when another process bound the picked one first, and only then', async () => {
    const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));
    const tried: number[] = [];
    const intruders: net.Server[] = [];
    // The first port is taken between the pick and the bind, as another test run's stack would.
    const started = await services.startOnFreePort(async (port: number) => {
      tried.push(port);
      if (tried.length === 1) intruders.push(await listen(port));
      return listen(port);
    });
    try {
      expect(tried).toHaveLength(2);
      expect(tried[1]).not.toBe(tried[0]);
      expect((started.address() as net.AddressInfo).port).toBe(tried[1]);
    } finally {
      await Promise.all([started, ...intruders].map(close));
    }
    let calls = 0;
    await expect(
      services.startOnFreePort(async () => {
        calls += 1;
        throw new Error('PostgreSQL: could not create database');
      }),
    ).rejects.toThrow('could not create database');
    expect(calls).toBe(1);
  });

  it('assertPortsFree names every taken port and the variable that moves it', async () => {
    const taken = await listen();
    const port = (taken.address() as net.AddressInfo).port;
    const [free] = await services.getFreePorts(1);
    try {
      await expect(
        services.assertPortsFree([
          { port: free, what: 'MinIO S3 API', envVar: 'MINIO_PORT' },
          { port, what: 'API', envVar: 'API_PORT' },
        ]),
      ).rejects.toThrow(`cannot start:\n  port ${port} (API) is already in use — set API_PORT=<port> to use another\n`);
      await expect(services.assertPortsFree([{ port: free, what: 'MinIO S3 API' }])).resolves.toBeUndefined();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('searchAttributeFlags turns infra/search-attributes.json into --search-attribute flags', () => {
    const file = path.resolve(__dirname, '../../../infra/search-attributes.json');
    const attributes = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; type: string }[];
    const flags = services.searchAttributeFlags();
    expect(flags).toHaveLength(2 * attributes.length);
    expect(flags.slice(0, 2)).toEqual(['--search-attribute', 'TenantId=Keyword']);
    expect(flags.filter((_, i) => i % 2 === 1)).toEqual(attributes.map(({ name, type }) => `${name}=${type}`));
  });
});
