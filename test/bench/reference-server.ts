// The reference a read is measured against: a bare node:http server in its own process that
// answers every request with one fixed body, as the service would (JSON, Content-Length).
// Started by the bench runner (fork); it sends { port } over IPC once listening and exits when
// its parent disconnects.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

interface Start {
  body: string;
  status?: number;
  contentType?: string;
}

process.once("message", (message: Start) => {
  // Later messages ask for this process's CPU time (the bench's CPU per request).
  process.on("message", (ask: { cpu?: true }) => {
    if (!ask.cpu) return;
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system });
  });
  const body = Buffer.from(message.body, "base64");
  const headers = {
    "Content-Type": message.contentType ?? "application/json; charset=utf-8",
    "Content-Length": body.length,
    "X-Content-Type-Options": "nosniff",
  };
  const status = message.status ?? 200;
  const server = createServer((req, res) => {
    // Drain the request body like a real handler would, then answer.
    req.on("data", () => {});
    req.on("end", () => {
      res.writeHead(status, headers);
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
});
process.once("disconnect", () => process.exit(0));
