// A URL nothing listens on (a port just freed): a homeserver that cannot be reached.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
