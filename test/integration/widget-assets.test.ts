// /widget.js and /client.js as the service serves them: static, cacheable (ETag, 304), immutable
// under their versioned URL, gzipped within the widget's budget, usable from any origin; and the
// SDK module importable as published.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { serviceFor } from "../support/harness.ts";
import { WIDGET_BUDGET_GZIP_BYTES, widgetAssets } from "../../src/widget/serve.ts";

const running = serviceFor("sqlite");

test("GET /widget.js: an ETag, 304 on revalidation, immutable when versioned, gzipped within budget", async () => {
  const { service } = running;
  const { "/widget.js": asset } = await widgetAssets();
  const plain = await fetch(`${service.url}/widget.js`, { headers: { "accept-encoding": "identity" } });
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(plain.headers.get("etag"), `"${asset.version}"`);
  assert.equal(plain.headers.get("cache-control"), "public, max-age=300");
  assert.equal(plain.headers.get("access-control-allow-origin"), "*");
  const text = await plain.text();
  assert.match(text, /matrix-comments/);

  const again = await fetch(`${service.url}/widget.js`, { headers: { "if-none-match": `"${asset.version}"` } });
  assert.equal(again.status, 304);

  const versioned = await fetch(`${service.url}/widget.js?v=${asset.version}`);
  assert.equal(versioned.headers.get("cache-control"), "public, max-age=31536000, immutable");

  assert.ok(asset.gzip.length <= WIDGET_BUDGET_GZIP_BYTES, `${asset.gzip.length} bytes gzipped`);
  assert.equal(gunzipSync(asset.gzip).toString(), text);
  assert.equal(
    (await fetch(`${service.url}/widget.js`, { method: "POST" })).status,
    404,
    "only GET and HEAD: other methods go to the API's routing",
  );
});

test("GET /client.js is the SDK as one ES module", async () => {
  const { service } = running;
  const source = await (await fetch(`${service.url}/client.js`)).text();
  const sdk = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
  for (const name of ["CommentsClient", "CommentList", "Identity", "indexedDbKeyStore", "fileKeyStore", "solvePow"])
    assert.equal(typeof sdk[name], "function", name);
  const identity = await sdk.Identity.load("s", sdk.memoryKeyStore());
  assert.match(identity.publicKey, /^[A-Za-z0-9_-]{43}$/);
  // The minified solver still runs as a worker's source.
  const answer: string = await sdk.solvePow("abc", 8);
  assert.equal(createHash("sha256").update(answer).digest()[0], 0);
});
