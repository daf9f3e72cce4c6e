import { createConnection, createServer, Server, Socket } from 'node:net';
import { AddressInfo } from 'node:net';

/**
 * A TCP proxy on an ephemeral port of this machine in front of a real server (PostgreSQL), which a
 * test can cut: `down()` closes every connection through it and refuses new ones, as a database
 * that went away does to its clients; `up()` lets them through again.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private open = true;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => holder.proxy!.accept(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.proxy = new TcpProxy(server, (server.address() as AddressInfo).port);
    return holder.proxy;
  }

  /** The same URL with host and port of this proxy. */
  url(target: string): string {
    const u = new URL(target);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  down(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  up(): void {
    this.open = true;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise((r) => this.server.close(r));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (!this.open) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host, port });
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}
