// What the homeserver gateway asks the homeserver (src/matrix/homeserver.ts), seen by a stand-in
// HTTP server: the request bodies the spec fixes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Homeserver } from "../../src/matrix/homeserver.ts";
import { MatrixNames } from "../../src/matrix/names.ts";

test("a profile avatar is set with MSC4466 propagate_to: all (and cleared the same way)", async () => {
  const seen: Array<{ method: string; url: string; body: unknown }> = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, body: JSON.parse(text) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const hs = new Homeserver(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      "token",
      new MatrixNames("_service_", "localhost"),
      2000,
    );
    await hs.setAvatarUrl("@_service_v:localhost", "mxc://localhost/a");
    await hs.setAvatarUrl("@_service_v:localhost", null);
    assert.deepEqual(
      seen.map((r) => [r.method, r.url.split("?")[0], r.body]),
      [
        [
          "PUT",
          "/_matrix/client/v3/profile/%40_service_v%3Alocalhost/avatar_url",
          { avatar_url: "mxc://localhost/a", propagate_to: "all" },
        ],
        [
          "PUT",
          "/_matrix/client/v3/profile/%40_service_v%3Alocalhost/avatar_url",
          { avatar_url: "", propagate_to: "all" },
        ],
      ],
    );
  } finally {
    server.close();
  }
});
