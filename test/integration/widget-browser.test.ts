// The widget in headless Chromium against the real service and Synapse, embedded by the demo
// page from another origin (CORS preflights, Origin checks, the event stream cross-origin):
// posting, replies, reactions, polls, edits, deletes, live updates between tabs, the identity
// across reloads, a lost response retried without a duplicate, and HTML from Matrix accounts
// that must never run (more of it in widget-reading.test.ts). Screenshots (light and dark) go to test-artifacts/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, BrowserContext, HTTPRequest, Page } from "puppeteer-core";
import { startTestService, uniqueSiteId, eventually, type TestService } from "../support/harness.ts";
import {
  TEST_AS_TOKEN,
  TEST_HOMESERVER_URL,
  TEST_OPERATOR_TOKEN,
  TEST_SERVICE_PORT,
  TEST_NAMESPACE_PREFIX,
} from "../support/environment.ts";
import { matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import {
  demoPageClient,
  find,
  inWidget,
  launchBrowser,
  openWidget,
  postInWidget,
  screenshot,
  waitInWidget,
} from "../support/browser.ts";
import { png } from "../support/media-fixtures.ts";
import { startDemoServer } from "../../src/widget/serve.ts";
import type { CommentsClient } from "../../src/client/index.ts";

const enc = encodeURIComponent;
const site = uniqueSiteId("widget");
const slug = "article";
let service: TestService;
let demo: { url: string; close: () => Promise<void> };
let browser: Browser;
let secondVisitor: BrowserContext;
let tabA: Page;
let tabB: Page;
/** The SDK in Node, as a third visitor: polls, media and locations for the widget to show. */
let sdk: CommentsClient;

/** Waits for the comment whose body contains `text` in `page`. */
const shown = (page: Page, text: string) => find(page, (t) => commentWith(t), text);

/**
 * Clicks the button labelled `label` of the comment whose body contains `text`. A live event
 * may re-render the list between finding and clicking: then it is found again.
 */
async function clickOn(page: Page, text: string, label: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await (await find(page, (t, l) => buttonOf(t, l), text, label)).click();
    } catch (err) {
      if (attempt >= 3 || !/detached|not clickable/i.test(String(err))) throw err;
    }
  }
}

/** Every comment the service lists for the page. */
const listed = async () => (await sdk.listComments(slug, { per_page: 100 }, { personalized: false })).data;

describe("the widget in a browser", () => {
  before(async () => {
    demo = await startDemoServer({
      apiUrl: `http://127.0.0.1:${TEST_SERVICE_PORT}`,
      site,
      page: slug,
      host: "127.0.0.1",
      port: 0,
    });
    service = await startTestService({ sites: { [site]: { origins: [demo.url] } } });
    browser = await launchBrowser();
    secondVisitor = await browser.createBrowserContext();
    // Site writes need the site's Origin, which a browser would send.
    sdk = await demoPageClient(service.url, site, demo.url);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await demo?.close();
  });

  test("the first page is painted after one read; a comment posted in one tab arrives live in another visitor's", async () => {
    const reads: string[] = [];
    tabA = await openWidget(browser, demo.url, slug, (page) =>
      page.on("request", (r) => {
        const path = new URL(r.url()).pathname;
        if (path.startsWith("/api/") && !path.endsWith("/sse")) reads.push(`${r.method()} ${path}`);
      }),
    );
    await waitInWidget(tabA, (root) => root.textContent!.includes("No comments yet"));
    // Cross-origin QUERY: the preflight, then the read; nothing else before the paint.
    assert.deepEqual(reads.slice(0, 2).sort(), [
      `OPTIONS /api/v1/sites/${site}/pages/${slug}/comments`,
      `QUERY /api/v1/sites/${site}/pages/${slug}/comments`,
    ]);
    tabB = await openWidget(secondVisitor, demo.url, slug);
    await waitInWidget(tabB, (root) => root.textContent!.includes("Live"));

    await tabA.type("matrix-comments >>> input[name=name]", "Ada");
    await postInWidget(tabA, "Hello from tab A");
    await shown(tabA, "Hello from tab A");
    await shown(tabB, "Hello from tab A");
    const headers = await Promise.all(
      [tabA, tabB].map((tab) => inWidget(tab, (root) => root.querySelector("article header")!.textContent!)),
    );
    assert.match(headers[0]!, /Ada.*\(you\)/, "tab A wrote it");
    assert.match(headers[1]!, /Ada/);
    assert.doesNotMatch(headers[1]!, /\(you\)/, "tab B is another visitor");
  });

  test("a reply appears under its comment, in both tabs", async () => {
    await clickOn(tabB, "Hello from tab A", "Reply");
    // The form appears with the next frame's render.
    await tabB.waitForSelector("matrix-comments >>> form.reply-form textarea");
    await tabB.type("matrix-comments >>> form.reply-form textarea", "A reply from tab B");
    await tabB.click("matrix-comments >>> form.reply-form button[type=submit]");
    for (const tab of [tabA, tabB]) {
      await find(tab, () =>
        commentWith("Hello from tab A")
          ?.querySelector(":scope > ol.replies")
          ?.textContent?.includes("A reply from tab B"),
      );
    }
    const reply = (await listed()).find((m) => m.content.type === "text" && m.content.body === "A reply from tab B")!;
    const root = (await listed()).find((m) => m.content.type === "text" && m.content.body === "Hello from tab A")!;
    assert.deepEqual([reply.reply_to, reply.thread_root], [root.event_id, root.event_id]);
  });

  test("react and unreact: the count goes live to the other tab", async () => {
    await clickOn(tabA, "Hello from tab A", "Add a reaction");
    await clickOn(tabA, "Hello from tab A", "React with 🎉");
    await find(tabA, () => buttonOf("Hello from tab A", "🎉 1")?.getAttribute("aria-pressed") === "true");
    await find(tabB, () => buttonOf("Hello from tab A", "🎉 1")?.getAttribute("aria-pressed") === "false");
    await eventually(
      async () => (await listed()).find((m) => m.reactions.some((r) => r.key === "🎉" && r.count === 1)),
      20_000,
      "the reaction in the read model",
    );

    await clickOn(tabA, "Hello from tab A", "🎉 1");
    await tabB.waitForFunction(
      () => !document.querySelector("matrix-comments")!.shadowRoot!.textContent!.includes("🎉 1"),
      { timeout: 20_000 },
    );
    await eventually(
      async () => (await listed()).every((m) => m.reactions.length === 0),
      20_000,
      "the reaction removed",
    );
  });

  test("a poll: a vote is counted and shown", async () => {
    await sdk.createPoll(slug, { question: "Tea or coffee?", options: ["Tea", "Coffee"], displayName: "Pollster" });
    await (
      await find(tabA, () =>
        commentWith("Tea or coffee?")?.querySelector<HTMLElement>(".poll button[aria-label='Coffee: 0 votes']"),
      )
    ).click();
    for (const tab of [tabA, tabB])
      await find(tab, () => commentWith("Tea or coffee?")?.querySelector(".poll button[aria-label='Coffee: 1 vote']"));
  });

  test("edit and delete one's own comment", async () => {
    await postInWidget(tabA, "Typo here");
    await shown(tabA, "Typo here");
    await clickOn(tabA, "Typo here", "Edit");
    const editor = await tabA.waitForSelector("matrix-comments >>> form.reply-form textarea");
    await editor!.focus();
    await tabA.keyboard.down("Control");
    await tabA.keyboard.press("KeyA");
    await tabA.keyboard.up("Control");
    await tabA.keyboard.type("Fixed text");
    await tabA.click("matrix-comments >>> form.reply-form button[type=submit]");
    for (const tab of [tabA, tabB]) {
      await find(
        tab,
        () =>
          commentWith("Fixed text")?.querySelector(":scope > header")?.textContent?.includes("(edited)") &&
          commentWith("Fixed text"),
      );
    }
    assert.equal(await tabB.evaluate(() => buttonOf("Fixed text", "Edit")), null, "another visitor cannot edit it");

    await clickOn(tabA, "Fixed text", "Delete");
    for (const tab of [tabA, tabB]) await shown(tab, "This comment was deleted.");
    assert.deepEqual(await inWidget(tabB, (root) => root.textContent!.includes("Fixed text")), false);
  });

  test("the identity survives a reload", async () => {
    const before = await inWidget(tabA, (root) => root.querySelectorAll("article header").length);
    await tabA.reload();
    await shown(tabA, "Hello from tab A");
    const header = await inWidget(tabA, (root) => root.querySelector("article header")!.textContent!);
    assert.match(header, /\(you\)/, "still the author after the reload");
    assert.equal(await inWidget(tabA, (root) => root.querySelectorAll("article header").length), before);
  });

  test("a post whose response is lost is retried with the same Idempotency-Key: one comment, not two", async () => {
    await tabA.setRequestInterception(true);
    const attempts: Array<{ key: string | undefined; body: string | undefined }> = [];
    const intercept = (request: HTTPRequest) => {
      if (request.isInterceptResolutionHandled()) return;
      if (request.method() !== "POST" || !request.url().endsWith("/comments")) return void request.continue();
      attempts.push({ key: request.headers()["idempotency-key"], body: request.postData() });
      if (attempts.length > 1) return void request.continue();
      // The request reaches the service, but its answer never reaches the browser.
      void fetch(request.url(), { method: "POST", headers: request.headers(), body: request.postData() }).then(() =>
        request.abort("connectionreset"),
      );
    };
    tabA.on("request", intercept);
    await postInWidget(tabA, "Only once, please");
    await shown(tabA, "Only once, please");
    // The first attempt's comment shows before the retry (after a backoff) has its answer.
    await eventually(async () => attempts.length === 2, 20_000, "the retry");
    await waitInWidget(tabA, (root) => root.textContent!.includes("Posted."));
    tabA.off("request", intercept);
    await tabA.setRequestInterception(false);
    assert.equal(attempts.length, 2);
    assert.deepEqual(attempts[1], attempts[0], "the retry is the same request");
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(
      (await listed()).filter((m) => m.content.type === "text" && m.content.body === "Only once, please").length,
      1,
    );
  });

  test("HTML from a Matrix account is sanitized, javascript: links and names stay text; nothing runs", async () => {
    const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${site}_${slug}:localhost`);
    const human = await registerMatrixUser(`widget${Date.now().toString(36)}`);
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, human.token, {});
    await matrixRequest("PUT", `/_matrix/client/v3/profile/${enc(human.userId)}/displayname`, human.token, {
      displayname: "Mallory <b>bold</b>",
    });
    const evil = `<img src=x onerror="window.__xss='img'"> <a href="javascript:window.__xss='link'">click</a>`;
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/send/m.room.message/x1`, human.token, {
      msgtype: "m.text",
      body: evil,
      format: "org.matrix.custom.html",
      formatted_body: evil,
    });
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/send/m.room.message/x2`, human.token, {
      msgtype: "m.text",
      body: "javascript:window.__xss='text' and https://example.org/ok",
    });
    await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/typing/${enc(human.userId)}`, human.token, {
      typing: true,
      timeout: 30_000,
    });
    for (const tab of [tabA, tabB]) {
      // The formatted body, sanitized: the image and the link's javascript: href are gone, its text stays.
      await shown(tab, "click");
      await shown(tab, "javascript:window.__xss='text'");
      await waitInWidget(tab, (root) =>
        root.querySelector(".typing")!.textContent!.includes("Mallory <b>bold</b> is typing"),
      );
    }
    const seen = await inWidget(tabA, (root) => ({
      images: [...root.querySelectorAll("article .body img")].map((i) => i.getAttribute("src")),
      links: [...root.querySelectorAll("a")].map((a) => a.getAttribute("href")),
      bold: root.querySelectorAll("b").length,
      sanitizedLink: [...root.querySelectorAll(".body.html a")].map((a) => a.getAttributeNames()),
      badge: [...root.querySelectorAll("article")]
        .filter((a) => a.querySelector(":scope > .body")!.textContent!.trim() === "click")
        .map((a) => a.querySelector(".badge")?.textContent),
    }));
    assert.deepEqual(seen.images, [], "no image from the HTML");
    assert.deepEqual(seen.bold, 0);
    assert.deepEqual(seen.sanitizedLink, [[]], "the javascript: link keeps no attribute");
    assert.ok(
      seen.links.every((href) => href === null || /^https?:/.test(href) || href.startsWith("#comment-")),
      `only http(s) links and permalinks: ${seen.links.join(" ")}`,
    );
    assert.ok(seen.links.includes("https://example.org/ok"), "plain URLs are links");
    assert.deepEqual(seen.badge, ["Matrix"], "a Matrix account's comment is marked");
    // Clicking the would-be link runs nothing either.
    await (await find(tabA, () => commentWith("click")?.querySelector(":scope > .body"))).click();
    for (const tab of [tabA, tabB])
      assert.equal(await tab.evaluate(() => (window as unknown as { __xss?: string }).__xss ?? null), null);
  });

  test("media, locations and stickers are shown; long pages are paginated", async () => {
    const upload = await fetch(`${TEST_HOMESERVER_URL}/_matrix/media/v3/upload?filename=cat.png`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_AS_TOKEN}`, "content-type": "image/png" },
      body: new Uint8Array(png(64, 64)),
    });
    const { content_uri } = (await upload.json()) as { content_uri: string };
    const stickers = await fetch(`${service.url}/api/v1/operator/sites/${site}/packs/cats/stickers`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        shortcode: "cat",
        url: content_uri,
        body: "A cat sticker",
        info: { w: 64, h: 64, mimetype: "image/png" },
      }),
    });
    assert.equal(stickers.status, 200);
    await sdk.postMedia(slug, new Uint8Array(png(120, 80)), {
      mime: "image/png",
      filename: "photo.png",
      caption: "A photo",
      displayName: "Grace",
    });
    await sdk.postLocation(slug, { geoUri: "geo:52.52,13.405", description: "Berlin", displayName: "Grace" });
    await sdk.postComment(slug, { media: { kind: "sticker", url: content_uri }, displayName: "Grace" });
    await tabA.waitForSelector(`matrix-comments >>> img.media[alt="A photo"]`, { timeout: 20_000 });
    await tabA.waitForSelector(`matrix-comments >>> img.sticker[alt="A cat sticker"]`, { timeout: 20_000 });
    await shown(tabA, "Berlin");
    await tabA.waitForFunction(
      () =>
        [...document.querySelector("matrix-comments")!.shadowRoot!.querySelectorAll("img")].every(
          (img) => img.complete && img.naturalWidth > 0,
        ),
      { timeout: 20_000 },
    );

    await screenshot(tabA, "widget-light");
    await tabA.evaluate(() => document.querySelector("matrix-comments")!.setAttribute("theme", "dark"));
    await screenshot(tabA, "widget-dark");
    assert.equal(
      await inWidget(tabA, (root) => getComputedStyle(root.host).backgroundColor),
      "rgb(21, 24, 30)",
      "the dark theme's background",
    );

    // Pagination: the same page with two comments per page.
    await tabB.evaluate(() => {
      const widget = document.querySelector("matrix-comments")!;
      widget.setAttribute("per-page", "2");
      widget.replaceWith(widget.cloneNode());
    });
    await waitInWidget(
      tabB,
      (root) => root.querySelectorAll("ol:not(.replies) > li").length > 0 && root.querySelector("button.more") !== null,
    );
    const first = await inWidget(tabB, (root) => root.querySelectorAll("article").length);
    // Found and clicked in one step: the list may render again between a lookup and a click
    // (its live stream connecting), leaving a looked-up button detached.
    await inWidget(tabB, (root) => root.querySelector<HTMLButtonElement>("button.more")!.click());
    await waitInWidget(tabB, (root, n) => root.querySelectorAll("article").length > n, 20_000, first);
  });

  test("the keyboard posts (Ctrl+Enter in the composer) and every button has an accessible name", async () => {
    await tabB.focus("matrix-comments >>> textarea[name=comment]");
    await tabB.keyboard.type("Sent from the keyboard");
    await tabB.keyboard.down("Control");
    await tabB.keyboard.press("Enter");
    await tabB.keyboard.up("Control");
    await shown(tabA, "Sent from the keyboard");
    const labels = await inWidget(
      tabA,
      (root) =>
        [...root.querySelectorAll("button")].filter(
          (b) => !(b.textContent ?? "").trim() && !b.getAttribute("aria-label"),
        ).length,
    );
    assert.equal(labels, 0, "every button has a name");
  });
});
