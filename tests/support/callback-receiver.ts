import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as it arrived: signatures are checked over these bytes. */
  raw: string;
  json: any;
  /** What the receiver answered; undefined while it holds the request open. */
  answered?: number;
}

/** How the receiver answers a request: a status code, or 'hang' to hold it open until `release()`. */
export type ReceiverMode = number | 'hang';

/**
 * A merchant's callback endpoint on an ephemeral port of this machine, as a real HTTP server.
 * Tests switch its behaviour (answer 200, 503, or hang) and read what arrived.
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  mode: ReceiverMode = 200;
  /** The most requests held open at the same time. */
  maxOpen = 0;
  private open = 0;
  private held: { res: ServerResponse; cb: ReceivedCallback }[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/callbacks'): Promise<CallbackReceiver> {
    const holder: { receiver?: CallbackReceiver } = {};
    const server = createServer((req, res) => holder.receiver!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.receiver = new CallbackReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return holder.receiver;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const cb: ReceivedCallback = { headers: req.headers, raw, json };
      this.received.push(cb);
      if (this.mode === 'hang') {
        this.open += 1;
        this.maxOpen = Math.max(this.maxOpen, this.open);
        this.held.push({ res, cb });
        res.on('close', () => (this.open -= 1));
        return;
      }
      cb.answered = this.mode;
      res.writeHead(this.mode, { 'content-type': 'text/plain' }).end(this.mode < 300 ? 'ok' : 'unavailable');
    });
  }

  /** Callbacks this receiver answered 2xx. */
  accepted(): ReceivedCallback[] {
    return this.received.filter((c) => c.answered !== undefined && c.answered >= 200 && c.answered < 300);
  }

  /** Answers the requests held open (those still connected) with `status`, and stops holding new ones. */
  release(status = 200): void {
    this.mode = status;
    for (const { res, cb } of this.held.splice(0)) {
      if (res.writableEnded || res.destroyed) continue;
      cb.answered = status;
      res.writeHead(status).end();
    }
  }

  async stop(): Promise<void> {
    this.release(503);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
