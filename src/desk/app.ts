/// <reference lib="dom" />
// The desk: a moderation dashboard for a site's governors, served at /admin by the service it
// speaks to (same origin, strict CSP). The shell: sign-in, the hash routes, the status line.
//   #/                       the sites the signed-in user governs
//   #/site/<id>[/<tab>]      a site: feed (default), pages, held, banned, settings
//   #/site/<id>/page/<slug>  a page's settings and comments
//   #/site/<id>/thread/<id>  a comment in context
//   #/operator               the operator's queue, repairs, quarantine and upgrade intents
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { gql, signInAsOperator, signInWithMatrix, signOut, type Homeserver } from "./api.ts";
import { Feed, ThreadView } from "./feed.ts";
import { OperatorView } from "./operator.ts";
import { PagesView, PageView, SiteSettingsView } from "./pages.ts";
import { BannedView, HeldView } from "./review.ts";
import { t, type StringKey } from "./strings.ts";
import { accessOf, AccessContext, html, type Me, report, shell, useAccess } from "./ui.ts";

const route = () => location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);

function useRoute(): string[] {
  const [parts, setParts] = useState(route);
  useEffect(() => {
    const onChange = () => setParts(route());
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return parts;
}

function App({ homeservers }: { homeservers: Homeserver[] }) {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [notice, setNotice] = useState<{ text: string; error: boolean } | null>(null);
  const parts = useRoute();
  const main = useRef<HTMLElement>(null);

  const load = () =>
    gql<{ me: Me }>("{ me { kind userId sites { siteId role pages { pageSlug role } } } }").then(
      (data) => setMe(data.me),
      () => setMe(null),
    );
  shell.notify = (text, error = false) => setNotice({ text, error });
  shell.signedOut = () => setMe(null);
  useEffect(() => void load(), []);
  // A new view: focus goes to its content, as a new page would, and the last view's news go.
  useEffect(() => {
    main.current?.focus({ preventScroll: true });
    setNotice(null);
  }, [parts.join("/"), me === null]);

  const leave = async () => {
    await signOut().catch(report);
    setMe(null);
  };

  if (me === undefined) return html`<main class="center"><p>${t("loading")}</p></main>`;
  const status = html`<p class=${notice?.error ? "notice error" : "notice"} role="status">${notice?.text ?? ""}</p>`;
  if (me === null)
    return html`<main id="main" ref=${main} tabindex="-1" class="center">
      <${SignIn} homeservers=${homeservers} signedIn=${() => void load().then(() => setNotice(null))} />
      ${status}
    </main>`;

  const [section, siteId, tab = "feed", arg = ""] = parts;
  let view: unknown;
  if (section === "operator" && me.kind === "operator") view = html`<${OperatorView} />`;
  else if (section === "site" && siteId)
    view = html`<${AccessContext.Provider} value=${accessOf(me, siteId)}>
      <${SiteView} siteId=${siteId} tab=${tab} arg=${arg} />
    </${AccessContext.Provider}>`;
  else view = html`<${Sites} me=${me} />`;
  return html`
    <a class="skip" href="#main" onClick=${(e: Event) => (e.preventDefault(), main.current?.focus())}>${t("skipToContent")}</a>
    <header class="top">
      <a class="brand" href="#/">${t("appName")}</a>
      <nav aria-label=${t("appName")}>
        <a href="#/" aria-current=${section === "site" || section === "operator" ? undefined : "page"}>${t("sites")}</a>
        ${me.kind === "operator" && html`<a href="#/operator" aria-current=${section === "operator" ? "page" : undefined}>${t("operatorDesk")}</a>`}
      </nav>
      <span class="who">${t("signedInAs", { who: me.userId ?? t("operator") })}</span>
      <button type="button" onClick=${() => void leave()}>${t("signOut")}</button>
    </header>
    <main id="main" ref=${main} tabindex="-1">${view}</main>
    ${status}
  `;
}

function SignIn({ homeservers, signedIn }: { homeservers: Homeserver[]; signedIn: () => void }) {
  const [busy, setBusy] = useState(false);
  const attempt = async (e: Event, run: (form: FormData) => Promise<void>) => {
    e.preventDefault();
    setBusy(true);
    try {
      await run(new FormData(e.currentTarget as HTMLFormElement));
      signedIn();
    } catch (err) {
      report(err);
    } finally {
      setBusy(false);
    }
  };
  const matrix = (form: FormData) => {
    const homeserver = homeservers.find((hs) => hs.name === form.get("homeserver")) ?? homeservers[0]!;
    return signInWithMatrix(homeserver, String(form.get("user")), String(form.get("password")));
  };
  return html`<h1>${t("appName")}</h1>
    <section class="panel" aria-labelledby="signin-matrix">
      <h2 id="signin-matrix">${t("signInMatrix")}</h2>
      <p class="muted">${t("signInMatrixHint")}</p>
      <form class="settings" onSubmit=${(e: Event) => void attempt(e, matrix)}>
        <label
          >${t("homeserver")}
          <select name="homeserver">
            ${homeservers.map((hs) => html`<option value=${hs.name}>${hs.name} (${hs.url})</option>`)}
          </select></label
        >
        <label>${t("user")} <input name="user" autocomplete="username" required /></label>
        <label>${t("password")} <input name="password" type="password" autocomplete="current-password" required /></label>
        <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t("signingIn") : t("signIn")}</button></div>
      </form>
    </section>
    <section class="panel" aria-labelledby="signin-operator">
      <h2 id="signin-operator">${t("signInOperator")}</h2>
      <form class="settings" onSubmit=${(e: Event) => void attempt(e, (form) => signInAsOperator(String(form.get("token"))))}>
        <label>${t("operatorToken")} <input name="token" type="password" autocomplete="off" required /></label>
        <p class="muted">${t("operatorHint")}</p>
        <div class="actions"><button type="submit" disabled=${busy}>${t("signIn")}</button></div>
      </form>
    </section>`;
}

function Sites({ me }: { me: Me }) {
  return html`<h1>${t("sites")}</h1>
    ${
      me.sites.length === 0
        ? html`<p class="muted">${t("noSites")}</p>`
        : html`<ul class="cards" data-list="sites">
          ${me.sites.map(
            (site) => html`<li key=${site.siteId}>
              <a class="card link" href=${`#/site/${site.siteId}`}>
                <strong>${site.siteId}</strong>
                <span class="muted">${site.role ?? t("roleOn", { role: site.pages[0]?.role ?? "", count: site.pages.length })}</span>
              </a>
            </li>`,
          )}
        </ul>`
    }`;
}

const TABS: Array<[string, StringKey]> = [
  ["feed", "feed"],
  ["pages", "pages"],
  ["held", "held"],
  ["banned", "banned"],
];

function SiteView({ siteId, tab, arg }: { siteId: string; tab: string; arg: string }) {
  // The site's settings are a manager's: a moderator is not shown them.
  const { manages } = useAccess();
  const tabs: Array<[string, StringKey]> = manages ? [...TABS, ["settings", "siteSettings"]] : TABS;
  const views: Record<string, () => unknown> = {
    pages: () => html`<${PagesView} siteId=${siteId} />`,
    held: () => html`<${HeldView} siteId=${siteId} />`,
    banned: () => html`<${BannedView} siteId=${siteId} />`,
    ...(manages && { settings: () => html`<${SiteSettingsView} siteId=${siteId} />` }),
    page: () => html`<${PageView} key=${arg} siteId=${siteId} slug=${arg} />`,
    thread: () => html`<${ThreadView} siteId=${siteId} eventId=${arg} />`,
  };
  return html`<h1>${siteId}</h1>
    <nav class="tabs" aria-label=${siteId}>
      ${tabs.map(
        ([name, label]) =>
          html`<a href=${`#/site/${siteId}/${name}`} aria-current=${tab === name ? "page" : undefined}>${t(label)}</a>`,
      )}
    </nav>
    ${(views[tab] ?? (() => html`<${Feed} siteId=${siteId} />`))()}`;
}

const root = document.getElementById("desk")!;
const homeservers = JSON.parse(root.dataset.homeservers ?? "[]") as Homeserver[];
render(html`<${App} homeservers=${homeservers} />`, root);
