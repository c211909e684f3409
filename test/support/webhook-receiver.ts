// A webhook receiver on 127.0.0.1 (node:http): records every request it gets, and answers each
// as the test's `answer` says (a status, or hang: never answer until closed).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  /** The request's path and query. */
  url: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Answer = number | "hang";

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Requests it left hanging that the sender gave up on (closed) since. */
  abandoned = 0;
  private server: Server | null = null;
  private readonly hanging = new Set<() => void>();

  /** `answer(request, n)`: how to answer the n-th request (0-based) of this webhook-id. */
  constructor(private readonly answer: (request: ReceivedWebhook, attempt: number) => Answer = () => 200) {}

  async start(): Promise<string> {
    this.server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const request = {
        url: req.url ?? "",
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      const attempt = this.received.filter((r) => r.headers["webhook-id"] === request.headers["webhook-id"]).length;
      this.received.push(request);
      const answer = this.answer(request, attempt);
      if (answer === "hang") {
        res.once("close", () => this.abandoned++);
        this.hanging.add(() => res.destroy());
        return;
      }
      res.writeHead(answer, { "content-type": "text/plain" });
      res.end(answer >= 300 ? "receiver says no" : "ok");
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hook`;
  }

  /** The requests carrying `type` in their body. */
  ofType(type: string): ReceivedWebhook[] {
    return this.received.filter((r) => JSON.parse(r.body).type === type);
  }

  async stop(): Promise<void> {
    for (const end of this.hanging) end();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
