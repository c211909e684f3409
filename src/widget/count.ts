// <matrix-comment-count site="my-blog" page="my-post"></matrix-comment-count>: the comment count
// of a page, for index pages. Served as /count.js (a classic script of its own, a few hundred
// bytes gzipped). Every count element on the page is filled from ONE request per site
// (QUERY …/page-counts, up to 200 pages per request), batched over the elements connected in
// the same task. The text follows the page's language (<html lang>, else the browser's) with
// Intl.PluralRules and Intl.NumberFormat: attributes named by plural category (zero, one, two,
// few, many, other) give the text with {count} in it, defaulting to "{count} comment" / "{count}
// comments". `live` (optionally a number of seconds, at least 15, default 60) keeps the count
// current: every live element of the page is asked again in one request per interval. `base`
// names the service (default: where count.js was loaded from).
const MAX_PAGES = 200;
const DEFAULT_LIVE_SECONDS = 60;
const MIN_LIVE_SECONDS = 15;

const scriptBase = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL(src).origin : location.origin;
})();

const language = () => document.documentElement.lang || navigator.language || "en";

class CommentCount extends HTMLElement {
  get base(): string {
    return (this.getAttribute("base") ?? scriptBase).replace(/\/+$/, "");
  }

  connectedCallback(): void {
    enqueue(this);
    const live = this.getAttribute("live");
    if (live !== null) watch(this, Math.max(MIN_LIVE_SECONDS, Number(live) || DEFAULT_LIVE_SECONDS));
  }

  disconnectedCallback(): void {
    watched.delete(this);
  }

  show(count: number): void {
    const lang = language();
    const category = new Intl.PluralRules(lang).select(count);
    const template =
      this.getAttribute(count === 0 && this.hasAttribute("zero") ? "zero" : category) ??
      this.getAttribute("other") ??
      (category === "one" ? "{count} comment" : "{count} comments");
    this.textContent = template.replace("{count}", new Intl.NumberFormat(lang).format(count));
    this.dataset.count = String(count);
  }
}

let pending: CommentCount[] = [];

/** Collects the elements connected in this task; one request per service and site follows. */
function enqueue(element: CommentCount): void {
  if (pending.length === 0) queueMicrotask(flush);
  pending.push(element);
}

function flush(): void {
  const groups = new Map<string, CommentCount[]>();
  for (const element of pending) {
    const site = element.getAttribute("site");
    if (!site || !element.getAttribute("page")) continue;
    const key = `${element.base} ${site}`;
    groups.set(key, [...(groups.get(key) ?? []), element]);
  }
  pending = [];
  for (const [key, elements] of groups) {
    const [base, site] = key.split(" ") as [string, string];
    const pages = [...new Set(elements.map((e) => e.getAttribute("page")!))];
    for (let i = 0; i < pages.length; i += MAX_PAGES) void ask(base, site, pages.slice(i, i + MAX_PAGES), elements);
  }
}

async function ask(base: string, site: string, pages: string[], elements: CommentCount[]): Promise<void> {
  try {
    const res = await fetch(`${base}/api/v1/sites/${encodeURIComponent(site)}/page-counts`, {
      method: "QUERY",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pages }),
    });
    if (!res.ok) return;
    const { data } = (await res.json()) as { data: Array<{ page_slug: string; comment_count: number }> };
    const counts = new Map(data.map((c) => [c.page_slug, c.comment_count]));
    for (const element of elements) {
      const count = counts.get(element.getAttribute("page")!);
      if (count !== undefined) element.show(count);
    }
  } catch {
    // Offline or refused: the element keeps what it shows (its fallback text at first).
  }
}

/** Live elements, asked again together: one timer per interval length. */
const watched = new Map<CommentCount, number>();
const timers = new Map<number, number>();

function watch(element: CommentCount, seconds: number): void {
  watched.set(element, seconds);
  if (timers.has(seconds)) return;
  timers.set(
    seconds,
    window.setInterval(() => {
      for (const [e, s] of watched) if (s === seconds) enqueue(e);
    }, seconds * 1000),
  );
}

if (!customElements.get("matrix-comment-count")) customElements.define("matrix-comment-count", CommentCount);
