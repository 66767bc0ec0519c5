/**
 * S3 without static keys (issue 18): with S3_ACCESS_KEY and S3_SECRET_KEY unset, the object store
 * takes its credentials from the environment's role, as in a pod or a container with an IAM role.
 * Here the role is served the way ECS and EKS Pod Identity serve it (AWS_CONTAINER_CREDENTIALS_FULL_URI,
 * an HTTP endpoint on loopback), and the store is the test stack's real MinIO.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../infra/config';
import { createObjectStore } from '../../infra/object-store';

interface RoleEndpoint {
  url: string;
  requests: number;
  close(): Promise<void>;
}

async function startRoleEndpoint(accessKey: string, secretKey: string): Promise<RoleEndpoint> {
  const endpoint = { requests: 0 } as RoleEndpoint;
  const server = http.createServer((_req, res) => {
    endpoint.requests += 1;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ Code: 'Success', AccessKeyID: accessKey, SecretAccessKey: secretKey, Expiration: new Date(Date.now() + 3_600_000).toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/credentials/role`;
  endpoint.close = () => new Promise((resolve) => server.close(() => resolve()));
  return endpoint;
}

const envWithoutKeys = () => {
  const { S3_ACCESS_KEY: _a, S3_SECRET_KEY: _s, ...rest } = process.env;
  return rest;
};

afterEach(() => {
  delete process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
});

it('reads the role from the environment when no keys are configured, and writes and reads objects with it', async () => {
  const config = loadConfig(envWithoutKeys());
  expect(config.s3.credentials).toBe('environment');
  const role = await startRoleEndpoint(process.env.S3_ACCESS_KEY!, process.env.S3_SECRET_KEY!);
  process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = role.url;
  try {
    const store = createObjectStore(config.s3);
    await store.ensureBucket();
    const key = `role-test/${randomUUID()}.txt`;
    await store.client.putObject(store.bucket, key, Buffer.from('written with role credentials'));
    const read = await store.client.getObject(store.bucket, key);
    const chunks: Buffer[] = [];
    for await (const chunk of read) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('written with role credentials');
    // Fetched once and kept until shortly before they expire.
    expect(role.requests).toBe(1);
    await store.client.removeObject(store.bucket, key);
  } finally {
    await role.close();
  }
});

it('is refused by the store when the role does not grant access', async () => {
  const role = await startRoleEndpoint('not-a-user', 'not-the-secret-key');
  process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = role.url;
  try {
    const store = createObjectStore(loadConfig(envWithoutKeys()).s3);
    await expect(store.client.putObject(store.bucket, `role-test/${randomUUID()}`, Buffer.from('x'))).rejects.toMatchObject({ code: 'InvalidAccessKeyId' });
    expect(role.requests).toBeGreaterThanOrEqual(1);
  } finally {
    await role.close();
  }
});

it('wants both static keys or neither', () => {
  expect(() => loadConfig({ ...envWithoutKeys(), S3_ACCESS_KEY: 'only-the-key' })).toThrow(/S3_ACCESS_KEY and S3_SECRET_KEY go together/);
  expect(loadConfig(process.env).s3.credentials).toEqual({ accessKey: process.env.S3_ACCESS_KEY, secretKey: process.env.S3_SECRET_KEY });
  expect(loadConfig({ ...process.env, S3_PATH_STYLE: 'false' }).s3.pathStyle).toBe(false);
  expect(loadConfig(process.env).s3.pathStyle).toBe(true);
});
