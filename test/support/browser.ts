// Headless Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH) driven by puppeteer-core,
// for tests of the widget as a visitor's browser runs it. Screenshots go to test-artifacts/
// (gitignored), which outlives the test work directory.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import puppeteer, { type Browser, type BrowserContext, type ElementHandle, type Page } from "puppeteer-core";
import { CommentsClient, Identity, memoryKeyStore } from "../../src/client/index.ts";

export const ARTIFACTS_DIR = resolve(import.meta.dirname, "../../test-artifacts");

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    // As root in a container: no sandbox; /dev/shm may be small.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

declare global {
  /** The widget's shadow root (page helper). */
  function widgetRoot(): ShadowRoot | null;
  /** The comment (article) whose own body contains `text` (page helper). */
  function commentWith(text: string): HTMLElement | null;
  /** The button of that comment's own rows whose text or aria-label is `label` (page helper). */
  function buttonOf(text: string, label: string): HTMLButtonElement | null;
}

// Test functions are compiled by tsx with esbuild's keepNames, whose __name helper the page
// does not have: an identity stand-in. And lookups by visible text, which selectors lack.
const PAGE_HELPERS = `
window.__name = (f) => f;
window.widgetRoot = () => document.querySelector("matrix-comments")?.shadowRoot ?? null;
window.commentWith = (text) => [...(widgetRoot()?.querySelectorAll("article") ?? [])].find((a) => a.querySelector(":scope > .body")?.textContent.includes(text)) ?? null;
window.buttonOf = (text, label) => [...(commentWith(text)?.querySelectorAll(":scope > .row button") ?? [])].find((b) => b.textContent.trim() === label || b.getAttribute("aria-label") === label) ?? null;
`;

/** Waits until `fn` (run in the page) returns something truthy; returns it as an element handle (click it). */
export async function find<A extends unknown[]>(
  page: Page,
  fn: (...args: A) => unknown,
  ...args: A
): Promise<ElementHandle<Element>> {
  const handle = await page.waitForFunction(
    fn as (...a: unknown[]) => unknown,
    { timeout: 20_000, polling: 100 },
    ...args,
  );
  return handle.asElement() as ElementHandle<Element>;
}

/** A new tab with the demo page of `slug` open and its widget rendered; `prepare` runs before the page loads. */
export async function openWidget(
  context: Browser | BrowserContext,
  demoUrl: string,
  slug: string,
  prepare?: (page: Page) => void,
): Promise<Page> {
  const page = await context.newPage();
  prepare?.(page);
  await page.setViewport({ width: 800, height: 900 });
  page.on("dialog", (dialog) => void dialog.accept());
  await page.evaluateOnNewDocument(PAGE_HELPERS);
  await page.goto(`${demoUrl}/?page=${slug}`);
  await page.waitForFunction(() => !!document.querySelector("matrix-comments")?.shadowRoot?.querySelector("ol"));
  return page;
}

/**
 * Types into the widget's main composer and posts. The composer is made once the widget's first
 * read has answered, after the list itself: it is waited for.
 */
export async function postInWidget(page: Page, text: string): Promise<void> {
  const composer = "matrix-comments >>> textarea[name=comment]";
  await page.waitForSelector(composer);
  await page.type(composer, text);
  await page.click("matrix-comments >>> form[aria-label=Comment] button[type=submit]");
}

/** Evaluates `fn` with the widget's shadow root. */
export function inWidget<T, A extends unknown[]>(
  page: Page,
  fn: (root: ShadowRoot, ...args: A) => T,
  ...args: A
): Promise<Awaited<T>> {
  return page.evaluate(
    (source: string, ...rest: unknown[]) => {
      const root = document.querySelector("matrix-comments")!.shadowRoot!;
      return (0, eval)(`(${source})`)(root, ...rest);
    },
    fn.toString(),
    ...args,
  ) as Promise<Awaited<T>>;
}

/** Waits until `fn` (run with the widget's shadow root) returns something truthy, and returns it. */
export async function waitInWidget<A extends unknown[]>(
  page: Page,
  fn: (root: ShadowRoot, ...args: A) => unknown,
  timeout = 20_000,
  ...args: A
): Promise<void> {
  await page.waitForFunction(
    (source: string, ...rest: unknown[]) => {
      const root = document.querySelector("matrix-comments")?.shadowRoot;
      return root ? (0, eval)(`(${source})`)(root, ...rest) : false;
    },
    { timeout, polling: 100 },
    fn.toString(),
    ...args,
  );
}

/** A screenshot of the widget (or of the whole page, `element` null) into test-artifacts/<name>.png. */
export async function screenshot(
  page: Page,
  name: string,
  element: string | null = "matrix-comments",
): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  if (element === null) await page.screenshot({ path, fullPage: true });
  else await (await page.$(element))!.screenshot({ path });
  return path;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's WCAG 2.1 A and AA violations in the element `selector` names (the widget, its
 * shadow root included, by default): id, help and the offending nodes. axe is evaluated through
 * the DevTools protocol, which a page's CSP (the desk's forbids inline script) does not govern.
 */
export async function axeViolations(
  page: Page,
  selector = "matrix-comments",
): Promise<Array<{ id: string; help: string; nodes: string[] }>> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: typeof import("axe-core") }).axe;
    const result = await axe.run(document.querySelector(selector)!, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.html.slice(0, 200)) }));
  }, selector);
}

/** The element focused inside the widget (its shadow root's active element), and its outline (visible focus). */
export function focusedInWidget(
  page: Page,
): Promise<{ key: string | null; tag: string; text: string; outline: string } | null> {
  return page.evaluate(() => {
    const active = document.querySelector("matrix-comments")?.shadowRoot?.activeElement as HTMLElement | null;
    if (!active) return null;
    const style = getComputedStyle(active);
    return {
      key: active.dataset.key ?? null,
      tag: active.tagName.toLowerCase(),
      text: (active.getAttribute("aria-label") ?? active.textContent ?? "").trim(),
      outline: `${style.outlineStyle} ${style.outlineWidth}`,
    };
  });
}

/** Presses Tab until `matches` holds for the widget's focused element; at most `limit` presses. */
export async function tabTo(
  page: Page,
  matches: (focused: { key: string | null; tag: string; text: string }) => boolean,
  limit = 120,
): Promise<void> {
  for (let i = 0; i < limit; i++) {
    const focused = await focusedInWidget(page);
    if (focused && matches(focused)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`nothing matching was reached in ${limit} presses of Tab`);
}

/** The SDK as a visitor on the demo page uses it: a fresh identity, writes sent with the page's Origin (as a browser would). */
export async function demoPageClient(serviceUrl: string, site: string, demoUrl: string): Promise<CommentsClient> {
  const fromDemo: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: demoUrl } });
  return new CommentsClient({
    baseUrl: serviceUrl,
    site,
    identity: await Identity.load(site, memoryKeyStore()),
    fetch: fromDemo,
  });
}
