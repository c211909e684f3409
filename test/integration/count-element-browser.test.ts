// <matrix-comment-count> in headless Chromium against the real service and Synapse: an index
// page from another origin with 30 count elements fills them all from ONE request, in the
// page's language (German plural forms and number format here).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "puppeteer-core";
import { startTestService, TEST_ORIGIN, uniqueSiteId, type TestService } from "../support/harness.ts";
import { launchBrowser } from "../support/browser.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments, whenListed } from "../support/reads.ts";

const site = uniqueSiteId("counts");
let service: TestService;
let browser: Browser;
let index: Server;
let indexUrl = "";

before(async () => {
  service = await startTestService({ sites: { [site]: { origins: [TEST_ORIGIN] } } });
  const visitor = new Visitor(service.url, TEST_ORIGIN);
  // post-0 gets two comments, post-1 one, the other 28 none.
  for (const [page, key] of [
    ["post-0", "a"],
    ["post-0", "b"],
    ["post-1", "c"],
  ] as const) {
    const res = await visitor.post(
      `/api/v1/sites/${site}/pages/${page}/comments`,
      await visitor.commentBody(site, page, `on ${page}`),
      {
        "idempotency-key": key,
      },
    );
    await whenListed(res, async () => (await listComments(service, site, page)).data);
  }
  const elements = Array.from(
    { length: 30 },
    (_, i) =>
      `<li>Post ${i} <matrix-comment-count site="${site}" page="post-${i}" one="{count} Kommentar" other="{count} Kommentare">…</matrix-comment-count></li>`,
  ).join("\n");
  const html = `<!doctype html><html lang="de"><body><ul>${elements}</ul><script src="${service.url}/count.js"></script></body></html>`;
  index = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
  await new Promise<void>((resolve) => index.listen(0, "127.0.0.1", resolve));
  indexUrl = `http://127.0.0.1:${(index.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => index?.close(resolve));
  await service?.stop();
});

test("an index page with 30 counts fills them all with one request, in the page's language", async () => {
  const page = await browser.newPage();
  const countRequests: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/page-counts") && request.method() !== "OPTIONS") countRequests.push(request.method());
  });
  await page.goto(indexUrl);
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll("matrix-comment-count")].every(
        (e) => (e as HTMLElement).dataset.count !== undefined,
      ),
    { timeout: 20_000 },
  );
  const texts = await page.$$eval("matrix-comment-count", (elements) => elements.map((e) => e.textContent));
  assert.equal(texts.length, 30);
  assert.equal(texts[0], "2 Kommentare");
  assert.equal(texts[1], "1 Kommentar");
  assert.equal(texts[2], "0 Kommentare");
  assert.deepEqual(countRequests, ["QUERY"], "one request for all 30");
  await page.close();
});
