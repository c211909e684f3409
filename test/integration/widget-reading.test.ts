// The widget as people read and write with it, in headless Chromium against the real service and
// Synapse: Markdown written in one tab shown formatted in another; formatted bodies from a Matrix
// account carrying the OWASP filter-evasion payloads rendered inert; every language (a screenshot
// each in test-artifacts/); axe-core without a WCAG 2.1 A/AA violation in light and dark, empty
// and full, composer open, formatted, right to left; keyboard-only posting, replying and reacting;
// the sort orders; a link to a comment on the third page; a collapsed thread opened.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { eventually, startTestService, uniqueSiteId, type TestService } from "../support/harness.ts";
import { TEST_SERVICE_PORT, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import {
  axeViolations,
  find,
  focusedInWidget,
  inWidget,
  launchBrowser,
  openWidget,
  screenshot,
  tabTo,
  waitInWidget,
} from "../support/browser.ts";
import { startDemoServer } from "../../src/widget/serve.ts";
import { LANGUAGES } from "../../src/widget/i18n.ts";
import { CommentsClient, Identity, memoryKeyStore, type ListOrder, type Message } from "../../src/client/index.ts";

const enc = encodeURIComponent;
const site = uniqueSiteId("reading");
let service: TestService;
let demo: { url: string; close: () => Promise<void> };
let browser: Browser;
let fromDemo: typeof fetch;

/** A visitor of its own, writing through the SDK in Node (as the demo page's origin). */
async function visitor(): Promise<CommentsClient> {
  return new CommentsClient({
    baseUrl: service.url,
    site,
    identity: await Identity.load(site, memoryKeyStore()),
    fetch: fromDemo,
  });
}

/** Posts and waits until the read model lists it; the comment. */
async function posted(client: CommentsClient, page: string, comment: Parameters<CommentsClient["postComment"]>[1]) {
  const { submission_id } = await client.postComment(page, comment);
  return eventually(
    async () =>
      (await client.listComments(page, { per_page: 100 }, { personalized: false })).data.find(
        (m) => m.submission_id === submission_id,
      ),
    30_000,
    "the comment in the read model",
  );
}

const bodyOf = (m: Message) => (m.content.type === "text" ? m.content.body : "");
const bodies = (page: Page) =>
  inWidget(page, (root) =>
    [...root.querySelectorAll("ol:not(.replies) > li > article > .body")].map((b) => b.textContent!.trim()),
  );

describe("the widget, read and written", () => {
  before(async () => {
    demo = await startDemoServer({
      apiUrl: `http://127.0.0.1:${TEST_SERVICE_PORT}`,
      site,
      page: "reading",
      host: "127.0.0.1",
      port: 0,
    });
    // Every tab here is the same client (127.0.0.1) to the service, and the languages alone open
    // 14 event streams within seconds: more than one visitor's SSE burst (8).
    service = await startTestService({
      sites: { [site]: { origins: [demo.url] } },
      overrides: { "rate_limit.sse_burst": 200 },
    });
    browser = await launchBrowser();
    fromDemo = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: demo.url } });
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await demo?.close();
  });

  test("Markdown written in one tab is shown formatted in another visitor's, from the formatted_body it sent", async () => {
    const writer = await openWidget(browser, demo.url, "reading");
    const reader = await openWidget(await browser.createBrowserContext(), demo.url, "reading");
    assert.deepEqual(await axeViolations(writer), [], "empty, light: no violation");
    await writer.type(
      "matrix-comments >>> textarea[name=comment]",
      "Some **bold** and _slanted_ words\n\n- one\n- two\n\n> quoted\n\n`inline` and [a link](https://example.org/x)\n\n```\nlet x = 1 < 2;\n```",
    );
    await writer.click("matrix-comments >>> form[aria-label=Comment] button[type=submit]");
    const shown = await find(reader, () => commentWith("quoted")?.querySelector(".body.html"));
    const html = await shown.evaluate((body) => ({
      strong: body.querySelector("strong")?.textContent,
      em: body.querySelector("em")?.textContent,
      items: [...body.querySelectorAll("ul > li")].map((li) => li.textContent),
      quote: body.querySelector("blockquote")?.textContent?.trim(),
      code: [...body.querySelectorAll("code")].map((c) => c.textContent),
      link: [...body.querySelectorAll("a")].map((a) => [a.getAttribute("href"), a.rel, a.target]),
    }));
    assert.deepEqual(html, {
      strong: "bold",
      em: "slanted",
      items: ["one", "two"],
      quote: "quoted",
      code: ["inline", "let x = 1 < 2;\n"],
      link: [["https://example.org/x", "noopener nofollow ugc", "_blank"]],
    });
    const client = await visitor();
    const stored = (await client.listComments("reading", {}, { personalized: false })).data[0]!;
    assert.equal(stored.content.type === "text" && stored.content.format, "org.matrix.custom.html");
    assert.match(bodyOf(stored), /^Some \*\*bold\*\*/, "the body is the Markdown itself (what was signed)");
    for (const theme of ["light", "dark"]) {
      await reader.evaluate((t) => document.querySelector("matrix-comments")!.setAttribute("theme", t), theme);
      assert.deepEqual(await axeViolations(reader), [], `formatted, ${theme}: no violation`);
    }
    await screenshot(reader, "widget-formatted");
    await writer.close();
    await reader.close();
  });

  test("formatted bodies a Matrix account sends with the OWASP filter-evasion payloads run nothing and keep only allowed attributes", async () => {
    const roomId = await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${site}_reading:localhost`);
    const human = await registerMatrixUser(`reader${Date.now().toString(36)}`);
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, human.token, {});
    const x = (name: string) => `window.__xss='${name}'`;
    const b64 = (html: string) => Buffer.from(html).toString("base64");
    const payloads = [
      `<SCRIPT SRC=https://xss.invalid/xss.js></SCRIPT>basic`,
      `<script>${x("script")}</script>inline script`,
      `<IMG SRC="javascript:${x("img-js")}">img javascript`,
      `<IMG SRC=JaVaScRiPt:${x("case")}>case`,
      `<IMG SRC=\`javascript:${x("grave")}\`>grave accents`,
      `<a onmouseover="${x("mouseover")}">malformed a</a>`,
      `<IMG """><SCRIPT>${x("malformed-img")}</SCRIPT>">`,
      `<IMG SRC=/ onerror="${x("onerror")}"></img>onerror`,
      `<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058${x("dec-no-semi")}">dec`,
      `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;${x("decimal")}">decimal entities</a>`,
      `<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;${x("hex")}">hex entities</a>`,
      `<a href="jav\tascript:${x("tab")}">embedded tab</a>`,
      `<a href="jav&#x09;ascript:${x("tab-entity")}">encoded tab</a>`,
      `<a href="jav&#x0A;ascript:${x("newline")}">encoded newline</a>`,
      `<a href="jav&#x0D;ascript:${x("cr")}">encoded carriage return</a>`,
      `<a href="javas&Tab;cript:${x("named-entity")}">named entity</a>`,
      `<a href=" &#14;  javascript:${x("meta-chars")}">spaces and meta chars</a>`,
      `<SCRIPT/XSS SRC="https://xss.invalid/xss.js"></SCRIPT>non-alpha`,
      `<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^\`=${x("body")}>body onload`,
      `<<SCRIPT>${x("brackets")};//<</SCRIPT>extra brackets`,
      `<SCRIPT SRC=https://xss.invalid/xss.js?< B >no closing`,
      `<IMG SRC="javascript:${x("half-open")}"`,
      `<iframe src=https://xss.invalid/ <double open`,
      `</TITLE><SCRIPT>${x("title")}</SCRIPT>end title`,
      `<INPUT TYPE="IMAGE" SRC="javascript:${x("input")}">input image`,
      `<BODY BACKGROUND="javascript:${x("body-background")}">body background`,
      `<IMG DYNSRC="javascript:${x("dynsrc")}"><IMG LOWSRC="javascript:${x("lowsrc")}">dynsrc`,
      `<svg/onload=${x("svg")}>svg onload`,
      `<svg><script>${x("svg-script")}</script></svg>svg script`,
      `<STYLE>li {list-style-image: url("javascript:${x("style")}");}</STYLE><UL><LI>list style</br></UL>`,
      `<IMG STYLE="xss:expr/*XSS*/ession(${x("expression")})">expression`,
      `<LINK REL="stylesheet" HREF="javascript:${x("link")}">stylesheet link`,
      `<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:${x("meta")};">meta refresh`,
      `<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html;base64,${b64(`<script>${x("meta-data")}</script>`)}">meta data`,
      `<IFRAME SRC="javascript:${x("iframe")};"></IFRAME>iframe`,
      `<FRAMESET><FRAME SRC="javascript:${x("frame")};"></FRAMESET>frameset`,
      `<TABLE BACKGROUND="javascript:${x("table")}"><TR><TD BACKGROUND="javascript:${x("td")}">table</TD></TR></TABLE>`,
      `<DIV STYLE="background-image: url(javascript:${x("div-bg")})">div background</DIV>`,
      `<DIV STYLE="width: expression(${x("div-expression")});">div expression</DIV>`,
      `<BASE HREF="javascript:${x("base")};//">base`,
      `<OBJECT TYPE="text/x-scriptlet" DATA="https://xss.invalid/scriptlet.html"></OBJECT>object`,
      `<EMBED SRC="data:image/svg+xml;base64,${b64(`<svg xmlns="http://www.w3.org/2000/svg"><script>${x("embed")}</script></svg>`)}" type="image/svg+xml" AllowScriptAccess="always"></EMBED>embed`,
      `<a href="data:text/html;base64,${b64(`<script>${x("data")}</script>`)}">data uri</a>`,
      `<a href="vbscript:msgbox('XSS')">vbscript</a>`,
      `<form action="javascript:${x("form")}"><button formaction="javascript:${x("formaction")}">form</button></form>`,
      `<input autofocus onfocus="${x("autofocus")}">autofocus`,
      `<details open ontoggle="${x("toggle")}"><summary>details toggle</summary>x</details>`,
      `<video><source onerror="${x("source")}"></video>video source`,
      `<math><mtext><table><mglyph><style><img src=x onerror="${x("mxss")}"></style></mglyph></table></mtext></math>mathml`,
      `<noscript><p title="</noscript><img src=x onerror=${x("noscript")}>">noscript</p></noscript>`,
      `<template><img src=x onerror=${x("template")}></template>template`,
      `<xmp><img src=x onerror=${x("xmp")}></xmp>xmp`,
      `<!--<img src=x onerror=${x("comment")}>-->html comment`,
      `<![CDATA[<img src=x onerror=${x("cdata")}>]]>cdata`,
      `<mx-reply><blockquote>quoted <img src=x onerror=${x("reply")}></blockquote></mx-reply>after the reply fallback`,
      `<a href="https://example.org/ok" onclick="${x("click")}" style="color:red" class="evil" id="evil" name="evil" target="_self" rel="opener">allowed link</a>`,
      `<a href="mailto:someone@example.org">mail link</a><a href="//xss.invalid/">protocol relative</a><a href="/relative">relative</a>`,
      `<span data-mx-color="#f00" style="position:fixed;inset:0" data-mx-spoiler="why">spoiler</span>`,
      `<code class="language-js evil">classed code</code><ol start="3" onclick="${x("ol")}"><li>third</li></ol>`,
      `<img src="mxc://localhost/abc" alt="an image">image from mxc`,
      `<font color="#ff0000" data-mx-bg-color="#000">font</font>`,
    ];
    const sent: string[] = [];
    for (const [i, html] of payloads.entries()) {
      const { event_id } = await matrixRequest<{ event_id: string }>(
        "PUT",
        `/_matrix/client/v3/rooms/${enc(roomId)}/send/m.room.message/owasp${i}`,
        human.token,
        { msgtype: "m.text", body: `payload ${i}`, format: "org.matrix.custom.html", formatted_body: html },
      );
      sent.push(event_id);
    }
    const tab = await openWidget(browser, demo.url, "reading&per-page=100");
    await waitInWidget(
      tab,
      (root, ids) => ids.every((id) => root.querySelector(`article[data-id="${id}"]`)),
      30_000,
      sent,
    );
    // Every event a handler could listen for, on everything the bodies hold (links aside: they navigate).
    await inWidget(tab, (root) => {
      for (const element of root.querySelectorAll(".body *"))
        for (const type of ["mouseover", "focus", "click", "load", "error", "toggle", "animationstart"])
          if (!(element instanceof HTMLAnchorElement && element.href)) element.dispatchEvent(new Event(type));
    });
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(
      await tab.evaluate(() => (window as unknown as { __xss?: string }).__xss ?? null),
      null,
      "nothing ran",
    );
    const found = await inWidget(
      tab,
      (root, ids) => {
        const bodies = ids.map((id) => root.querySelector(`article[data-id="${id}"] > .body`)!);
        const allowed: Record<string, string[]> = {
          a: ["href", "rel", "target"],
          ol: ["start"],
          code: ["class"],
          span: ["data-mx-spoiler"],
        };
        const elements = bodies.flatMap((body) => [...body.querySelectorAll("*")]);
        return {
          tags: [...new Set(elements.map((e) => e.localName))].sort(),
          attributes: elements.flatMap((e) =>
            [...e.attributes]
              .filter((a) => !(allowed[e.localName] ?? []).includes(a.name))
              .map((a) => `${e.localName}[${a.name}]`),
          ),
          hrefs: elements.filter((e) => e.hasAttribute("href")).map((e) => e.getAttribute("href")),
          rels: elements
            .filter((e) => e.localName === "a" && e.hasAttribute("href"))
            .map((e) => `${e.getAttribute("rel")} ${e.getAttribute("target")}`),
          classes: elements.filter((e) => e.hasAttribute("class")).map((e) => e.getAttribute("class")),
          texts: bodies.map((b) => b.textContent!.trim()),
        };
      },
      sent,
    );
    const allowedTags = [
      "a",
      "b",
      "blockquote",
      "br",
      "caption",
      "code",
      "del",
      "details",
      "div",
      "em",
      "h1",
      "h2",
      "h3",
      "h4",
      "h5",
      "h6",
      "hr",
      "i",
      "li",
      "ol",
      "p",
      "pre",
      "s",
      "span",
      "strike",
      "strong",
      "sub",
      "summary",
      "sup",
      "table",
      "tbody",
      "td",
      "th",
      "thead",
      "tr",
      "u",
      "ul",
    ];
    assert.deepEqual(
      found.tags.filter((t) => !allowedTags.includes(t)),
      [],
      "only the specification's tags (no img, no font)",
    );
    assert.deepEqual(found.attributes, [], "no attribute outside the allowlist");
    assert.deepEqual(
      found.hrefs,
      ["https://example.org/ok", "mailto:someone@example.org"],
      "only http(s) and mailto links",
    );
    assert.ok(
      found.rels.every((r) => r === "noopener nofollow ugc _blank"),
      found.rels.join(", "),
    );
    assert.deepEqual(found.classes, [], "language-js evil is not a language class");
    assert.ok(
      found.texts.some((t) => t === "after the reply fallback"),
      "a reply fallback goes with its content",
    );
    assert.ok(
      found.texts.some((t) => t.includes("image from mxc")),
      "an image's text stays, the image not",
    );
    assert.deepEqual(await axeViolations(tab), [], "full, with hostile formatting: no violation");
    await tab.close();
  });

  test("keyboard only: post, reply and react; focus visible and kept on live updates; new comments announced", async () => {
    const context = await browser.createBrowserContext();
    const page = await openWidget(context, demo.url, "keys");
    await tabTo(page, (f) => f.tag === "textarea");
    await page.keyboard.type("Typed with keys only");
    await tabTo(page, (f) => f.tag === "button" && f.text === "Post");
    assert.match((await focusedInWidget(page))!.outline, /^solid [1-9]/, "the focus is visible");
    await page.keyboard.press("Enter");
    // The page's first comment: its room is provisioned first.
    await waitInWidget(page, () => commentWith("Typed with keys only"), 60_000).catch(async (err) => {
      const state = await inWidget(page, (root) => root.textContent);
      throw new Error(`${err}; the widget shows: ${state}`);
    });

    await tabTo(page, (f) => f.key?.startsWith("reply:") ?? false);
    await page.keyboard.press("Enter");
    await waitInWidget(page, (root) => (root.activeElement as HTMLElement | null)?.tagName === "TEXTAREA");
    await page.keyboard.type("A reply by keys");
    await page.keyboard.down("Control");
    await page.keyboard.press("Enter");
    await page.keyboard.up("Control");
    await find(page, () =>
      commentWith("Typed with keys only")
        ?.querySelector(":scope > ol.replies")
        ?.textContent?.includes("A reply by keys"),
    );

    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Tab");
    await tabTo(page, (f) => f.key?.startsWith("palette:") ?? false);
    const palette = (await focusedInWidget(page))!.key!;
    await page.keyboard.press("Enter");
    await tabTo(page, (f) => f.text === "React with 🎉");
    await page.keyboard.press("Enter");
    await find(page, () => buttonOf("Typed with keys only", "🎉 1")?.getAttribute("aria-pressed") === "true");

    // Someone else posts while the visitor sits on a control: the focus stays, the comment is announced.
    await tabTo(page, (f) => f.key === palette);
    await posted(await visitor(), "keys", { content: "Meanwhile, elsewhere", displayName: "Grace" });
    await find(page, () => commentWith("Meanwhile, elsewhere"));
    assert.equal((await focusedInWidget(page))!.key, palette, "the focus stayed on its control");
    await waitInWidget(page, (root) =>
      root.querySelector("[aria-live=polite].sr")?.textContent?.includes("New comment from Grace"),
    );
    assert.equal(
      await inWidget(page, (root) => root.querySelector(".typing")!.hasAttribute("aria-live")),
      false,
      "typing is not announced",
    );
    await page.emulateMediaFeatures([{ name: "prefers-reduced-motion", value: "reduce" }]);
    await tabTo(page, (f) => f.key?.startsWith("reply:") ?? false);
    await page.keyboard.press("Enter");
    await waitInWidget(page, (root) => root.querySelector("form.reply-form"));
    assert.deepEqual(await axeViolations(page), [], "composer open: no violation");
    await context.close();
  });

  test("every language's strings render (a screenshot each), fetched when chosen, with the first page in one round trip", async () => {
    const author = await visitor();
    const shown = await posted(author, "languages", {
      content: "**Formatted** text with `code`",
      markdown: true,
      displayName: "Ada",
    });
    await posted(author, "languages", { content: "A reply", replyTo: shown.event_id, threadRoot: shown.event_id });
    await (await visitor()).react("languages", shown.event_id, "👍");
    await author.react("languages", shown.event_id, "🎉");
    await eventually(
      async () => (await author.listComments("languages", {}, { personalized: false })).data[0]!.reactions.length === 2,
      20_000,
      "the reactions",
    );
    const context = await browser.createBrowserContext();
    for (const code of LANGUAGES) {
      const messages = JSON.parse(
        readFileSync(resolve(import.meta.dirname, `../../src/widget/locales/${code}.json`), "utf8"),
      ) as Record<string, unknown>;
      const before: string[] = [];
      let painted = false;
      const tab = await openWidget(context, demo.url, `languages&lang=${code}`, (page) =>
        page.on("request", (r) => {
          const path = new URL(r.url()).pathname;
          if (!painted && (path.startsWith("/api/") || path.startsWith("/widget/")) && !path.endsWith("/sse"))
            before.push(`${r.method()} ${path}`);
        }),
      );
      await waitInWidget(
        tab,
        (root, title, sort) =>
          root.querySelector("h2")?.textContent?.startsWith(title) &&
          root.querySelector(".toolbar label")?.textContent?.startsWith(sort) &&
          root.querySelectorAll("article").length === 2,
        20_000,
        messages.title as string,
        messages.sortBy as string,
      );
      painted = true;
      const comments = `/api/v1/sites/${site}/pages/languages/comments`;
      // The language file and the first page go side by side: nothing waits on another read (the
      // QUERY's CORS preflight, cached after the first language, aside).
      assert.deepEqual(
        before.filter((r) => !r.includes("/stickers") && !r.startsWith("OPTIONS")).sort(),
        [`QUERY ${comments}`, ...(code === "en" ? [] : [`GET /widget/lang/${code}.json`])].sort(),
        code,
      );
      const direction = await inWidget(tab, (root) => [
        root.querySelector("section")!.lang,
        getComputedStyle(root.querySelector("section")!).direction,
      ]);
      assert.deepEqual(direction, [code, code === "ar" || code === "he" ? "rtl" : "ltr"]);
      await screenshot(tab, `widget-lang-${code}`);
      if (code === "ar") {
        assert.deepEqual(await axeViolations(tab), [], "right to left: no violation");
        const indent = await inWidget(tab, (root) => {
          const body = root.querySelector("article .body")!;
          return [getComputedStyle(body).marginRight, getComputedStyle(body).marginLeft];
        });
        assert.deepEqual(indent, ["40px", "0px"], "the body's indent is on the right");
      }
      await tab.close();
    }
    await context.close();
  });

  test("sort orders: oldest, newest and top (by reactions) chosen in the widget, kept across reloads, read page by page", async () => {
    const author = await visitor();
    const first = await posted(author, "sorted", { content: "First, one reaction" });
    await posted(author, "sorted", { content: "Second, none" });
    const third = await posted(author, "sorted", { content: "Third, two reactions" });
    for (const [target, count] of [
      [third, 2],
      [first, 1],
    ] as const)
      for (let i = 0; i < count; i++) await (await visitor()).react("sorted", target.event_id, "👍");
    await eventually(
      async () =>
        (await author.listComments("sorted", { order: "top" }, { personalized: false })).data[0]?.event_id ===
        third.event_id,
      20_000,
      "the reactions in the read model",
    );
    const pages = async (order: ListOrder) => {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++)
        seen.push(
          ...(await author.listComments("sorted", { order, page, per_page: 1 }, { personalized: false })).data.map(
            bodyOf,
          ),
        );
      return seen;
    };
    assert.deepEqual(await pages("top"), ["Third, two reactions", "First, one reaction", "Second, none"]);
    assert.deepEqual(await pages("desc"), ["Third, two reactions", "Second, none", "First, one reaction"]);

    const context = await browser.createBrowserContext();
    const tab = await openWidget(context, demo.url, "sorted&order=newest");
    await waitInWidget(tab, (root) => root.querySelectorAll("article").length === 3);
    assert.deepEqual(
      await bodies(tab),
      ["Third, two reactions", "Second, none", "First, one reaction"],
      "the site's order",
    );
    await tab.select("matrix-comments >>> select[data-key=order]", "top");
    await waitInWidget(
      tab,
      (root) =>
        root.querySelector("article .body")?.textContent?.includes("Third") &&
        root.querySelectorAll("article").length === 3,
    );
    assert.deepEqual(await bodies(tab), ["Third, two reactions", "First, one reaction", "Second, none"]);
    await tab.reload();
    await waitInWidget(tab, (root) => root.querySelectorAll("article").length === 3);
    assert.deepEqual(
      await bodies(tab),
      ["Third, two reactions", "First, one reaction", "Second, none"],
      "the visitor's choice outlives the reload",
    );
    assert.equal(
      await inWidget(tab, (root) => root.querySelector<HTMLSelectElement>("select[data-key=order]")!.value),
      "top",
    );
    await tab.select("matrix-comments >>> select[data-key=order]", "asc");
    await waitInWidget(tab, (root) => root.querySelector("article .body")?.textContent?.includes("First"));
    assert.deepEqual(await bodies(tab), ["First, one reaction", "Second, none", "Third, two reactions"]);
    await context.close();
  });

  test("a link to a comment on page 3 loads the pages up to it, scrolls to it and highlights it; copy link gives its address", async () => {
    const author = await visitor();
    const comments: Message[] = [];
    for (let i = 1; i <= 7; i++) comments.push(await posted(author, "long", { content: `Long thread comment ${i}` }));
    const target = comments[5]!; // per-page 2: the third page holds comments 5 and 6
    const context = await browser.createBrowserContext();
    await context.overridePermissions(demo.url, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
    const tab = await openWidget(context, demo.url, `long&per-page=2#comment-${enc(target.event_id)}`);
    await tab.bringToFront();
    // Highlighted, focused and scrolled into view (the scroll may be smooth: waited for).
    await waitInWidget(
      tab,
      (root, id) => {
        const article = root.getElementById(`comment-${id}`);
        const box = article?.getBoundingClientRect();
        return (
          article?.classList.contains("target") &&
          root.activeElement === article &&
          box!.top >= 0 &&
          box!.bottom <= innerHeight
        );
      },
      20_000,
      target.event_id,
    );
    const seen = await inWidget(
      tab,
      (root, id) => ({
        articles: root.querySelectorAll("article").length,
        background: getComputedStyle(root.getElementById(`comment-${id}`)!).backgroundColor,
        scrolled: scrollY > 0,
      }),
      target.event_id,
    );
    assert.deepEqual(seen, { articles: 6, background: "rgb(255, 244, 194)", scrolled: true }, "pages 1 to 3 loaded");
    await screenshot(tab, "widget-permalink");

    await tabTo(tab, (f) => f.key === `copy:${comments[1]!.event_id}`);
    await tab.keyboard.press("Enter");
    await waitInWidget(tab, (root) => root.textContent!.includes("Link copied."));
    const copied = await tab.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, `${demo.url}/?page=long&per-page=2#comment-${enc(comments[1]!.event_id)}`);
    await waitInWidget(
      tab,
      (root, id) => root.getElementById(`comment-${id}`)?.classList.contains("target"),
      20_000,
      comments[1]!.event_id,
    );
    await context.close();
  });

  test("replies past the depth collapse into 'n more replies', opened in place", async () => {
    const author = await visitor();
    let parent = await posted(author, "deep", { content: "Depth 1" });
    const root = parent;
    for (let depth = 2; depth <= 5; depth++)
      parent = await posted(author, "deep", {
        content: `Depth ${depth}`,
        replyTo: parent.event_id,
        threadRoot: root.event_id,
      });
    const tab = await openWidget(browser, demo.url, "deep");
    const more = await find(tab, () =>
      [...widgetRoot()!.querySelectorAll("button")].find((b) => b.textContent === "2 more replies"),
    );
    assert.deepEqual(await inWidget(tab, (r) => [...r.querySelectorAll("article > .body")].map((b) => b.textContent)), [
      "Depth 1",
      "Depth 2",
      "Depth 3",
    ]);
    await more.focus();
    await tab.keyboard.press("Enter");
    await waitInWidget(tab, (r) => r.querySelectorAll("article").length === 5);
    assert.deepEqual(await inWidget(tab, (r) => [...r.querySelectorAll("article > .body")].map((b) => b.textContent)), [
      "Depth 1",
      "Depth 2",
      "Depth 3",
      "Depth 4",
      "Depth 5",
    ]);
    assert.equal((await focusedInWidget(tab))?.tag, "article", "the focus moves to the first opened reply");
    await tab.close();
  });
});
