import { Client as MinioClient, IamAwsProvider } from 'minio';
import { Config } from './config';

/**
 * MinIO or any S3-compatible store. Presigned URLs handed to people are signed for the public
 * endpoint (S3_PUBLIC_ENDPOINT), which may differ from the address the service itself uses.
 */
export interface ObjectStore {
  readonly bucket: string;
  readonly client: MinioClient;
  readonly publicClient: MinioClient;
  ensureBucket(): Promise<void>;
  ping(timeoutMs?: number): Promise<void>;
}

function clientFor(endpoint: string, s3: Config['s3']): MinioClient {
  const url = new URL(endpoint);
  return new MinioClient({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    useSSL: url.protocol === 'https:',
    region: s3.region,
    pathStyle: s3.pathStyle,
    // No static keys: the environment's role (web identity token file, container or instance
    // credentials), fetched and refreshed by the client before they expire.
    ...(s3.credentials === 'environment' ? { credentialsProvider: new IamAwsProvider({}) } : s3.credentials),
  });
}

export function createObjectStore(s3: Config['s3']): ObjectStore {
  const client = clientFor(s3.endpoint, s3);
  const publicClient = clientFor(s3.publicEndpoint, s3);
  return {
    bucket: s3.bucket,
    client,
    publicClient,
    async ensureBucket() {
      if (!(await client.bucketExists(s3.bucket))) {
        await client.makeBucket(s3.bucket, s3.region).catch(async (err) => {
          // Another process may have created it in between.
          if (!(await client.bucketExists(s3.bucket))) throw err;
        });
      }
    },
    async ping(timeoutMs = 2_000) {
      await withTimeout(client.bucketExists(s3.bucket), timeoutMs, 'object store did not answer');
    },
  };
}

/** The bytes of a stored file (its row's `object_key`), streamed from the object store. */
export async function openFileStream(objectStore: ObjectStore, file: { object_key: string }): Promise<NodeJS.ReadableStream> {
  return objectStore.client.getObject(objectStore.bucket, file.object_key);
}

/** A stored file's bytes, whole, refused with `tooLarge()` as soon as more than `limit` of them arrive. */
export async function readFileBounded(objectStore: ObjectStore, file: { object_key: string }, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await openFileStream(objectStore, file)) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += bytes.length;
    if (size > limit) throw tooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size);
}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
