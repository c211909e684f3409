/// <reference lib="dom" />
// A site's pages (search, sort by activity or count), one page's settings (close or reopen,
// hold for review) with its comments, and the site's own hold setting.
import { useState } from "preact/hooks";
import { gql } from "./api.ts";
import { Feed } from "./feed.ts";
import { HeldView } from "./review.ts";
import { t } from "./strings.ts";
import { act, html, Table, useAccess, useQuery, when } from "./ui.ts";

interface PageRow {
  slug: string;
  commentCount: number;
  lastActivityAt: string | null;
  roomState: string;
}

const ORDERS: Array<[string, string]> = [
  ["lastActivity", t("byActivity")],
  ["commentCount", t("byCount")],
  ["slug", t("bySlug")],
];

export function PagesView({ siteId }: { siteId: string }) {
  const [orderBy, setOrderBy] = useState("lastActivity");
  const [search, setSearch] = useState("");
  const query = useQuery<{ dashboardSite: { pages: { edges: Array<{ node: PageRow }> } } }>(
    `query Pages($siteId: String!, $orderBy: DashboardPageOrder, $search: String) { dashboardSite(siteId: $siteId) {
      pages(first: 100, orderBy: $orderBy, search: $search) { edges { node { slug commentCount lastActivityAt roomState } } } } }`,
    { siteId, orderBy, search: search || undefined },
  );
  const pages = (query.data?.dashboardSite.pages.edges ?? []).map((e) => e.node);
  return html`<section aria-labelledby="pages-title">
    <div class="toolbar">
      <h3 id="pages-title">${t("pages")}</h3>
      <label>${t("search")} <input type="search" placeholder=${t("searchPages")} value=${search} onInput=${(e: Event) => setSearch((e.currentTarget as HTMLInputElement).value)} /></label>
      <label
        >${t("sortBy")}
        <select value=${orderBy} onChange=${(e: Event) => setOrderBy((e.currentTarget as HTMLSelectElement).value)}>
          ${ORDERS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
        </select></label
      >
    </div>
    <${Table}
      label="pages"
      empty="noPages"
      rows=${pages}
      rowKey=${(page: PageRow) => page.slug}
      columns=${[
        ["page", (page: PageRow) => html`<a href=${`#/site/${siteId}/page/${page.slug}`}>${page.slug}</a>`],
        ["comments", (page: PageRow) => page.commentCount],
        ["lastActivity", (page: PageRow) => when(page.lastActivityAt)],
        ["room", (page: PageRow) => page.roomState],
      ]}
    />
  </section>`;
}

/** A page: its state and settings as the governor may change them, its held comments, its comments. */
export function PageView({ siteId, slug }: { siteId: string; slug: string }) {
  const { manages, moderates } = useAccess();
  const query = useQuery<{ dashboardSite: { pages: { edges: Array<{ node: { slug: string; closed: boolean } }> } } }>(
    `query Page($siteId: String!, $search: String) { dashboardSite(siteId: $siteId) {
      pages(first: 100, search: $search) { edges { node { slug closed } } } } }`,
    { siteId, search: slug },
  );
  // What this view did wins over the read: the projection of the new power levels may lag a moment.
  const [done, setDone] = useState<boolean | null>(null);
  const closed = done ?? query.data?.dashboardSite.pages.edges.find((e) => e.node.slug === slug)?.node.closed ?? false;
  const setClosed = async (close: boolean) => {
    const field = close ? "closePage" : "reopenPage";
    const mutation = `mutation Page($siteId: String!, $pageSlug: String!) { ${field}(siteId: $siteId, pageSlug: $pageSlug) }`;
    if (await act(() => gql(mutation, { siteId, pageSlug: slug }), t(close ? "closed" : "reopened"))) setDone(close);
  };
  return html`<section aria-labelledby="page-title">
    <h3 id="page-title">${t("pageTitle", { slug })}</h3>
    <section class="panel" aria-labelledby="page-settings">
      <h4 id="page-settings">${t("pageSettings")}</h4>
      <div class="actions">
        <span class="badge">${t(closed ? "pageClosed" : "pageOpen")}</span>
        ${
          !moderates(slug)
            ? null
            : closed
              ? html`<button type="button" onClick=${() => void setClosed(false)}>${t("reopenPage")}</button>`
              : html`<button type="button" class="danger" onClick=${() => void setClosed(true)}>${t("closePage")}</button>`
        }
      </div>
      ${manages && html`<${HoldForm} siteId=${siteId} pageSlug=${slug} />`}
    </section>
    ${moderates(slug) && html`<${HeldView} siteId=${siteId} pageSlug=${slug} />`}
    <${Feed} siteId=${siteId} pageSlug=${slug} />
  </section>`;
}

export function SiteSettingsView({ siteId }: { siteId: string }) {
  return html`<section class="panel" aria-labelledby="settings-title">
    <h3 id="settings-title">${t("siteSettings")}</h3>
    <${HoldForm} siteId=${siteId} />
  </section>`;
}

const MODES: Array<[string, string]> = [
  ["", t("holdInherited")],
  ["off", t("holdOff")],
  ["all", t("holdAll")],
  ["first_post", t("holdFirstPost")],
  ["links", t("holdLinks")],
];

/** The hold-for-review setting of the site, or of one page: mode and words. */
function HoldForm({ siteId, pageSlug }: { siteId: string; pageSlug?: string }) {
  const query = useQuery<{ dashboardSite: { moderation: { mode: string; words: string[] } } }>(
    `query Hold($siteId: String!, $pageSlug: String) { dashboardSite(siteId: $siteId) { moderation(pageSlug: $pageSlug) { mode words } } }`,
    { siteId, pageSlug },
  );
  const setting = query.data?.dashboardSite.moderation;
  if (!setting) return html`<p class="muted">${query.error ?? t("loading")}</p>`;
  const save = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const mode = String(form.get("mode") ?? "");
    const words = String(form.get("words") ?? "")
      .split(",")
      .map((w) => w.trim())
      .filter(Boolean);
    void act(
      () =>
        gql(
          `mutation Hold($siteId: String!, $pageSlug: String, $mode: HoldMode, $words: [String!]) {
          setModeration(siteId: $siteId, pageSlug: $pageSlug, mode: $mode, words: $words) { mode } }`,
          {
            siteId,
            pageSlug,
            mode: mode || undefined,
            words,
          },
        ),
      t("saved"),
    ).then((ok) => ok && query.reload());
  };
  return html`<form class="settings" aria-label=${t("holdMode")} onSubmit=${save}>
    <label
      >${t("holdMode")}
      <select name="mode" value=${setting.mode}>
        ${MODES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
      </select></label
    >
    <label>${t("holdWords")} <input name="words" value=${setting.words.join(", ")} /></label>
    <div class="actions"><button type="submit" class="primary">${t("save")}</button></div>
  </form>`;
}
