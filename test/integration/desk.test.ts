// The desk (the moderation dashboard at /admin) in headless Chromium against the real service
// and Synapse: a moderator with a real Matrix account signs in through the OpenID flow in the
// desk and moderates what a visitor writes through the widget in another browser context —
// live arrival, delete, ban (and unban), pin, close and reopen, a held first post approved by
// key, a bulk delete — while the widget shows each act. The operator signs in with the token and sees the queue and a repair. Every desk
// page passes axe (WCAG 2.1 A/AA); screenshots (light, dark, phone width) go to test-artifacts/.
// Security: the session cookie is refused cross-origin, the CSP blocks inline script, and
// markup in a comment (or a ban reason) stays text in every view.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { eventually, freshDatabase, PROVIDERS, startTestService, type TestService } from "../support/harness.ts";
import {
  TEST_HOMESERVER_URL,
  TEST_OPERATOR_TOKEN,
  TEST_SERVER_NAME,
  TEST_SERVICE_PORT,
  TEST_NAMESPACE_PREFIX,
} from "../support/environment.ts";
import { getState, matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import {
  axeViolations,
  demoPageClient,
  find,
  launchBrowser,
  openWidget,
  postInWidget,
  screenshot,
  waitInWidget,
} from "../support/browser.ts";
import { startDemoServer } from "../../src/widget/serve.ts";
import { DESK_BUDGET_GZIP_BYTES, deskAssets } from "../../src/desk/serve.ts";
import type { CommentsClient } from "../../src/client/index.ts";
import { MatrixNames } from "../../src/matrix/names.ts";

const enc = encodeURIComponent;
const names = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME);
const PASSWORD = "correct horse battery staple";
/** Markup that would run if any view put a comment's text into HTML. */
const HOSTILE = `<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> markup`;
const slug = "article";

/** Waits until the page's visible text contains `text`. */
const waitText = (page: Page, text: string) =>
  page.waitForFunction((t: string) => document.body.innerText.includes(t), { timeout: 20_000, polling: 100 }, text);

/** Clicks the control labelled `label` of the desk's card whose text contains `text`. */
async function onCard(page: Page, text: string, label: string): Promise<void> {
  const control = await find(
    page,
    (t: string, l: string) => {
      const card = [...document.querySelectorAll("article.card")].find((c) =>
        c.querySelector(".text")?.textContent?.includes(t),
      );
      return [...(card?.querySelectorAll(".actions > button, .actions > a") ?? [])].find(
        (b) => b.textContent?.trim() === l,
      );
    },
    text,
    label,
  );
  await control.click();
}

/** The texts of the comments the open delete or ban form quotes. */
const quotedInDialog = (page: Page) =>
  page.$$eval("form.dialog blockquote", (quotes) => quotes.map((q) => q.textContent ?? ""));

/** axe finds no WCAG 2.1 A/AA violation in the desk as shown; then a screenshot of it. */
async function checkDesk(page: Page, name: string): Promise<void> {
  assert.deepEqual(await axeViolations(page, "body"), [], `${name}: no violation`);
  await screenshot(page, `desk-${name}`, null);
}

/** Nothing a comment holds ran or became an element in the desk. */
async function assertInert(page: Page): Promise<void> {
  const found = await page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
    elements: document.querySelectorAll("#desk img, #desk script").length,
  }));
  assert.deepEqual(found, { pwned: null, elements: 0 });
}

async function openDesk(context: BrowserContext, url: string, viewport = { width: 1100, height: 900 }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewport(viewport);
  // Functions run in the page are compiled with keepNames (see browser.ts); the CSP does not govern this.
  await page.evaluateOnNewDocument("window.__name = (f) => f");
  await page.goto(url);
  return page;
}

for (const provider of PROVIDERS) {
  describe(`the desk in a browser (${provider})`, () => {
    const site = `desk-${randomBytes(5).toString("hex")}`;
    let drop = async () => {};
    let service: TestService;
    let demo: { url: string; close: () => Promise<void> };
    let browser: Browser;
    let desk: Page;
    let visitor: Page;
    let moderator: { userId: string; token: string };
    let sdk: CommentsClient;

    const listed = async (text: string) =>
      eventually(
        async () =>
          (await sdk.listComments(slug, { per_page: 100 }, { personalized: false })).data.find(
            (m) => m.content.type === "text" && m.content.body === text,
          ),
        30_000,
        `"${text}" listed`,
      );

    /** Sets levels in a room as the AS bot (its creator), keeping the others. */
    const setLevels = async (roomId: string, levels: Record<string, number>) => {
      const content = await getState(roomId, "m.room.power_levels");
      await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.power_levels/`, undefined, {
        ...content,
        users: { ...content.users, ...levels },
      });
    };

    before(async () => {
      const database = await freshDatabase(provider);
      drop = database.drop;
      demo = await startDemoServer({
        apiUrl: `http://127.0.0.1:${TEST_SERVICE_PORT}`,
        site,
        page: slug,
        host: "127.0.0.1",
        port: 0,
      });
      service = await startTestService({ databaseUrl: database.url, sites: { [site]: { origins: [demo.url] } } });
      browser = await launchBrowser();
      sdk = await demoPageClient(service.url, site, demo.url);
      // The page's room comes with its first comment; the moderator is made the site's admin in Matrix.
      await sdk.postComment(slug, { content: "An early comment" });
      await listed("An early comment");
      moderator = await registerMatrixUser(`deskmod${randomBytes(4).toString("hex")}`);
      const space = (await service.services.sites.store.spaceRoomId(site))!;
      const room = await resolveAlias(names.alias(names.roomAliasLocalpart(site, slug)));
      for (const roomId of [space, room]) {
        await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, moderator.token, {});
        await setLevels(roomId, { [moderator.userId]: 100 });
      }
    });

    after(async () => {
      await browser?.close();
      await service?.stop();
      await demo?.close();
      await drop();
    });

    test("the desk's JavaScript is within its budget; its files are immutable under their versions", async () => {
      const { gzip, version } = (await deskAssets())["/admin/desk.js"];
      console.log(
        `desk bundle: ${(gzip.length / 1024).toFixed(1)} KB gzipped (budget ${DESK_BUDGET_GZIP_BYTES / 1024} KB)`,
      );
      assert.ok(gzip.length <= DESK_BUDGET_GZIP_BYTES);
      const page = await (await fetch(`${service.url}/admin`)).text();
      assert.ok(page.includes(`<script src="/admin/desk.js?v=${version}" defer></script>`));
      const script = await fetch(`${service.url}/admin/desk.js?v=${version}`, {
        headers: { "accept-encoding": "gzip" },
      });
      assert.equal(script.status, 200);
      assert.equal(script.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
      await script.arrayBuffer();
      const again = await fetch(`${service.url}/admin/desk.js`, { headers: { "if-none-match": `"${version}"` } });
      assert.equal(again.status, 304);
      // Other methods and paths under /admin are not the desk's: the API answers them, never with a 5xx.
      for (const [method, path] of [
        ["POST", "/admin"],
        ["GET", "/admin/nothing.js"],
        ["DELETE", "/admin/desk.css"],
      ]) {
        const res = await fetch(`${service.url}${path}`, { method });
        await res.arrayBuffer();
        assert.ok(res.status >= 400 && res.status < 500, `${method} ${path}: ${res.status}`);
      }
    });

    test("a moderator signs in with their Matrix account (OpenID); the Matrix device is logged out again", async () => {
      const context = await browser.createBrowserContext();
      desk = await openDesk(context, `${service.url}/admin`);
      await desk.waitForSelector("input[name=user]");
      await checkDesk(desk, "sign-in");
      await desk.type("input[name=user]", moderator.userId);
      await desk.type("input[name=password]", PASSWORD);
      await desk.click("form:has(input[name=user]) button[type=submit]");
      await find(desk, (s: string) => document.querySelector(`a[href="#/site/${s}"]`), site);
      await waitText(desk, `Signed in as ${moderator.userId}`);
      await checkDesk(desk, "sites");
      const cookie = (await context.cookies()).find((c) => c.name === "dashboard_session");
      assert.equal(cookie?.httpOnly, true);
      assert.equal(cookie?.sameSite, "Strict");
      // The desk's Matrix login ended with the exchange: no device of it is left.
      const { devices } = await matrixRequest<{ devices: Array<{ display_name?: string }> }>(
        "GET",
        "/_matrix/client/v3/devices",
        moderator.token,
      );
      assert.ok(!devices.some((d) => d.display_name === "Comment desk sign-in"), JSON.stringify(devices));
    });

    test("a visitor's comment arrives live in the feed; markup in one stays text", async () => {
      await desk.click(`a[href="#/site/${site}"]`);
      await waitText(desk, "● Live");
      await waitText(desk, "An early comment");
      visitor = await openWidget(await browser.createBrowserContext(), demo.url, slug);
      await postInWidget(visitor, "Hello from a visitor");
      await waitText(desk, "Hello from a visitor");
      await postInWidget(visitor, HOSTILE);
      await waitText(desk, HOSTILE);
      await assertInert(desk);
      await checkDesk(desk, "feed");
    });

    test("deleting it with a reason: it disappears live from the widget", async () => {
      await onCard(desk, "Hello from a visitor", "Delete");
      // The form quotes the comment it deletes.
      assert.deepEqual(await quotedInDialog(desk), ["Hello from a visitor"]);
      await desk.type("form.dialog input[name=reason]", "off topic");
      await desk.click("form.dialog button[type=submit]");
      await waitInWidget(visitor, () => !commentWith("Hello from a visitor"));
      await find(desk, () =>
        [...document.querySelectorAll("article.card.gone")].some((a) => a.textContent?.includes("(deleted)")),
      );
    });

    test("banning its author: their next post is refused and the widget says why; unbanned from the list", async () => {
      await onCard(desk, "markup", "Ban author");
      // The form names the comment's author and quotes the comment; a day unless chosen otherwise.
      const dialog = await desk.$eval("form.dialog h4", (h) => h.textContent ?? "");
      assert.match(dialog, /^Ban this comment's author, Visitor \w+, from every page of the site$/);
      assert.deepEqual(await quotedInDialog(desk), [HOSTILE]);
      assert.equal(
        await desk.$eval("form.dialog select[name=duration]", (s) => (s as HTMLSelectElement).value),
        "86400",
      );
      await desk.type("form.dialog input[name=reason]", `spam ${HOSTILE}`);
      await desk.select("form.dialog select[name=duration]", "604800");
      await desk.click("form.dialog button[type=submit]");
      await waitText(desk, "Done.");
      await postInWidget(visitor, "Am I still welcome?");
      await waitInWidget(visitor, (root) =>
        root.textContent!.includes("Not sent: you are banned from commenting on this site"),
      );
      await desk.click(`a[href="#/site/${site}/banned"]`);
      await waitText(desk, "spam <img src=x");
      // The author by their name, not the service's Matrix id of them.
      const author = await desk.$eval("table[data-list=banned] tbody td", (td) => td.textContent ?? "");
      assert.match(author, /^Visitor \w+$/);
      await assertInert(desk);
      await checkDesk(desk, "banned");
      await desk.click("table button");
      await waitText(desk, "No author is banned.");
    });

    test("pinning a comment puts it first in the widget, live", async () => {
      await desk.click(`a[href="#/site/${site}/feed"]`);
      await waitText(desk, "● Live");
      await sdk.postComment(slug, { content: "Pin me, I came late" });
      await waitText(desk, "Pin me, I came late");
      await onCard(desk, "Pin me, I came late", "Pin");
      await waitText(desk, "Pinned.");
      await waitInWidget(visitor, (root) => {
        const first = root.querySelector("ol > li > article");
        return first?.textContent?.includes("Pin me, I came late") && first.textContent.includes("📌");
      });
      await screenshot(visitor, "desk-widget-pinned");
    });

    test("opening a comment in context: its thread, the comment marked", async () => {
      await onCard(desk, "markup", "Open in context");
      await find(desk, () => document.querySelector("article.card.target")?.textContent?.includes("markup"));
      await assertInert(desk);
      await checkDesk(desk, "thread");
    });

    test("the site's pages: searched and sorted", async () => {
      await desk.click(`a[href="#/site/${site}/pages"]`);
      await find(desk, (s: string) => document.querySelector(`table a[href$="/page/${s}"]`), slug);
      await desk.select("select", "commentCount");
      await checkDesk(desk, "pages");
      await desk.type("input[type=search]", "nothing-like-it");
      await waitText(desk, "No pages.");
    });

    test("closing the page: the widget hides its composer and says it is closed; reopened", async () => {
      await desk.goto(`${service.url}/admin#/site/${site}/page/${slug}`);
      await waitText(desk, "Open to comments");
      // The comment pinned earlier reads as pinned here too (the page's row carries its pins).
      await onCard(desk, "Pin me, I came late", "Unpin").catch(() => assert.fail("no Unpin on the pinned comment"));
      await waitText(desk, "Unpinned.");
      await onCard(desk, "Pin me, I came late", "Pin");
      await waitText(desk, "Pinned.");
      await desk.click("button.danger");
      await waitText(desk, "The page is closed");
      // Read again, the page says closed (from its projected power levels).
      await eventually(async () => {
        await desk.reload();
        return desk
          .waitForFunction(() => document.body.innerText.includes("Closed to new comments"), { timeout: 2_000 })
          .then(
            () => true,
            () => false,
          );
      });
      await visitor.reload();
      await waitInWidget(visitor, (root) => {
        const note = root.querySelector<HTMLElement>("p.closed");
        const form = root.querySelector("form[aria-label=Comment]")?.parentElement;
        return note && !note.hidden && note.textContent === "Comments are closed on this page." && form?.hidden;
      });
      await screenshot(visitor, "desk-widget-closed");
      await checkDesk(desk, "page");
      const reopen = await find(desk, () =>
        [...document.querySelectorAll("button")].find((b) => b.textContent?.includes("Reopen")),
      );
      await reopen.click();
      await waitText(desk, "The page is open again.");
    });

    test("a held first post: awaiting review in the widget, approved with a key in the desk, then shown", async () => {
      await desk.select("select[name=mode]", "first_post");
      await desk.click("form.settings button[type=submit]");
      await waitText(desk, "Saved.");
      const newcomer = await openWidget(await browser.createBrowserContext(), demo.url, slug);
      await postInWidget(newcomer, `My very first post ${HOSTILE}`);
      await waitInWidget(newcomer, (root) => root.textContent!.includes("Awaiting review"));
      await desk.click(`a[href="#/site/${site}/held"]`);
      await waitText(desk, "My very first post");
      // Who wrote it (the widget gave no name) and why it is held, in words.
      await waitText(desk, "A visitor without a name");
      await waitText(desk, "Held because it is the author's first comment on the site");
      await assertInert(desk);
      await checkDesk(desk, "held");
      await desk.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
      await checkDesk(desk, "held-dark");
      await desk.emulateMediaFeatures([]);
      await desk.keyboard.press("a");
      await waitText(desk, "Approved");
      await waitInWidget(newcomer, () => !!commentWith("My very first post"), 30_000);
      await waitInWidget(newcomer, (root) => !root.textContent!.includes("Awaiting review"));
    });

    test("a page moderator reviews their page's held comments; what they may not do is not offered", async () => {
      const pageModerator = await registerMatrixUser(`deskpagemod${randomBytes(4).toString("hex")}`);
      const room = await resolveAlias(names.alias(names.roomAliasLocalpart(site, slug)));
      await matrixRequest("POST", `/_matrix/client/v3/join/${enc(room)}`, pageModerator.token, {});
      await setLevels(room, { [pageModerator.userId]: 50 });
      const newcomer = await demoPageClient(service.url, site, demo.url);
      await newcomer.postComment(slug, { content: "Grace's first words", displayName: "Grace Newcomer" });
      const page = await openDesk(await browser.createBrowserContext(), `${service.url}/admin`);
      await page.waitForSelector("input[name=user]");
      await page.type("input[name=user]", pageModerator.userId);
      await page.type("input[name=password]", PASSWORD);
      await page.click("form:has(input[name=user]) button[type=submit]");
      await waitText(page, `Signed in as ${pageModerator.userId}`);
      // Their role is read from the projected power levels: the site shows once they are.
      await eventually(async () => {
        await page.reload();
        return page
          .waitForSelector(`a[href="#/site/${site}"]`, { timeout: 2_000 })
          .then(() => true)
          .catch(() => false);
      });
      await page.click(`a[href="#/site/${site}"]`);
      await waitText(page, "An early comment");
      const failure = () => page.$eval("p[role=status]", (p) => (p.classList.contains("error") ? p.textContent : null));
      // The feed offers delete and pin on their page's comments; banning is a site manager's.
      const acts = await page.$$eval("article.card .actions > button", (buttons) =>
        buttons.map((b) => b.textContent?.trim()),
      );
      assert.ok(acts.includes("Delete") && acts.includes("Pin"), JSON.stringify(acts));
      assert.ok(!acts.includes("Ban author"), JSON.stringify(acts));
      assert.equal(await page.$(`a[href="#/site/${site}/settings"]`), null, "no site settings");
      // The held tab lists what they may review: the held comments of the page they moderate.
      await page.click(`a[href="#/site/${site}/held"]`);
      await waitText(page, "Grace's first words");
      await waitText(page, "Grace Newcomer");
      assert.equal(await failure(), null);
      await checkDesk(page, "held-page-moderator");
      await page.click(`a[href="#/site/${site}/banned"]`);
      await waitText(page, "No author is banned.");
      assert.equal(await failure(), null);
      // The page view: its held comments and closing it, not the hold settings (a manager's).
      await page.evaluate((s: string, p: string) => (location.hash = `#/site/${s}/page/${p}`), site, slug);
      await waitText(page, "Held for review on this page");
      await waitText(page, "Grace's first words");
      assert.ok(await page.$("button.danger"), "close is offered");
      assert.equal(await page.$("select[name=mode]"), null, "no hold settings");
      await checkDesk(page, "page-page-moderator");
      await onCard(page, "Grace's first words", "Approve");
      await waitText(page, "Approved: it is being sent.");
      await listed("Grace's first words");
      assert.equal(await failure(), null);
      await page.browserContext().close();
    });

    test("bulk delete: two comments selected, deleted with one reason", async () => {
      await desk.click(`a[href="#/site/${site}/feed"]`);
      await waitText(desk, "● Live");
      for (const text of ["Bulk one", "Bulk two"]) await sdk.postComment(slug, { content: text });
      // Both arrived before either is clicked: a row arriving live moves the others down, and a
      // click lands where its target was measured.
      for (const text of ["Bulk one", "Bulk two"]) await waitText(desk, text);
      for (const text of ["Bulk one", "Bulk two"]) {
        const box = await find(
          desk,
          (t: string) =>
            [...document.querySelectorAll("article.card")]
              .find((c) => c.querySelector(".text")?.textContent === t)
              ?.querySelector("input[type=checkbox]"),
          text,
        );
        await box.click();
      }
      const bulk = await find(desk, () =>
        [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === "Delete selected (2)"),
      );
      await bulk.click();
      await desk.type("form.dialog input[name=reason]", "flood");
      await desk.click("form.dialog button[type=submit]");
      await eventually(
        async () => {
          const { data } = await sdk.listComments(slug, { per_page: 100 }, { personalized: false });
          // With the comment deleted earlier: three tombstones.
          return data.filter((m) => m.status === "redacted").length === 3;
        },
        20_000,
        "both deleted",
      );
      await waitInWidget(visitor, () => !commentWith("Bulk one") && !commentWith("Bulk two"));
    });

    test("dark and phone width: the feed", async () => {
      await waitText(desk, "Pin me, I came late");
      await desk.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
      await checkDesk(desk, "feed-dark");
      await desk.setViewport({ width: 375, height: 740 });
      await checkDesk(desk, "feed-phone");
      await desk.emulateMediaFeatures([]);
      await checkDesk(desk, "feed-phone-light");
      await desk.setViewport({ width: 1100, height: 900 });
      await desk.click(`a[href="#/site/${site}/settings"]`);
      await waitText(desk, "Hold new comments for review");
      await checkDesk(desk, "settings");
    });

    test("the operator signs in with the token and sees the queue and a repair", async () => {
      const { db } = service.services;
      const failed = await listed("Pin me, I came late");
      await db.submission.update({
        where: { id: failed.submission_id! },
        data: { status: "failed", lastError: "M_FORBIDDEN: simulated" },
      });
      await db.projectionRepair.create({
        data: {
          targetEventId: failed.event_id,
          eventType: "m.room.message",
          reason: "simulated failure",
          status: "manual",
          attempts: 4,
        },
      });
      const operator = await openDesk(await browser.createBrowserContext(), `${service.url}/admin`);
      // The sign-in form shows once the desk has asked who is signed in.
      await operator.waitForSelector("input[name=token]");
      await operator.type("input[name=token]", TEST_OPERATOR_TOKEN);
      await operator.click("form:has(input[name=token]) button[type=submit]");
      await waitText(operator, "Signed in as operator");
      await operator.click('a[href="#/operator"]');
      await waitText(operator, "M_FORBIDDEN: simulated");
      await waitText(operator, "simulated failure");
      await checkDesk(operator, "operator");
      await operator.setViewport({ width: 375, height: 740 });
      await screenshot(operator, "desk-operator-phone", null);
    });

    test("security: the session cookie is refused cross-origin; the CSP blocks inline script; sign-out ends the session", async () => {
      const res = await fetch(`${service.url}/admin`);
      const policy = res.headers.get("content-security-policy") ?? "";
      assert.match(policy, /script-src 'self'(;|$)/);
      assert.match(policy, new RegExp(`connect-src 'self' ${TEST_HOMESERVER_URL}(;|$)`));
      assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      // An injected inline script does not run.
      await desk.evaluate(() => {
        const script = document.createElement("script");
        script.textContent = "window.__inline = 1";
        document.body.append(script);
      });
      await desk.addScriptTag({ content: "window.__inline = 2" }).catch(() => {});
      assert.equal(await desk.evaluate(() => (window as unknown as { __inline?: number }).__inline ?? null), null);
      // The session's cookie, sent by another origin (or with no Origin), changes nothing.
      const cookie = (await desk.browserContext().cookies()).find((c) => c.name === "dashboard_session")!;
      for (const origin of ["https://evil.example", demo.url, null]) {
        const refused = await fetch(`${service.url}/graphql`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            cookie: `dashboard_session=${cookie.value}`,
            ...(origin ? { origin } : {}),
          },
          body: JSON.stringify({ query: `mutation { closePage(siteId: "${site}", pageSlug: "${slug}") }` }),
        });
        assert.equal(refused.status, 403);
        assert.equal(((await refused.json()) as { code: string }).code, "cross-origin-request");
      }
      const read = await sdk.listComments(slug, {}, { personalized: false });
      assert.equal(read.closed, false);
      // Signing out ends the session: the sign-in page again, and the cookie refused from now on.
      await desk.click("header.top button");
      await desk.waitForSelector("input[name=user]");
      const ended = await fetch(`${service.url}/graphql`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          cookie: `dashboard_session=${cookie.value}`,
          origin: service.url,
        },
        body: JSON.stringify({ query: "{ me { kind } }" }),
      });
      assert.equal(((await ended.json()) as { code: string }).code, "invalid-session");
    });
  });
}
