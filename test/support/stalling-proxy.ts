/**
 * A TCP forwarder to a real server that can go silent: once `stall()`ed, it stops passing bytes
 * on its open connections and accepts new ones without ever answering. What a Temporal frontend
 * that hangs (overloaded, half-partitioned) looks like to a client, which a stopped server (a
 * refused connection, answered at once) does not show.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StallingProxy {
  /** host:port to give the client. */
  readonly address: string;
  stall(): void;
  close(): Promise<void>;
}

export async function startStallingProxy(target: string): Promise<StallingProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let stalled = false;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (stalled) return;
    const upstream = net.connect({ host, port });
    track(upstream);
    client.on('data', (chunk) => stalled || upstream.write(chunk));
    upstream.on('data', (chunk) => stalled || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    stall() {
      stalled = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
