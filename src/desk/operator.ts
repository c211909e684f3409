/// <reference lib="dom" />
// The operator's desk: the submission queue (depth, failed submissions, retry), projection
// repairs (retry), quarantined rooms (reinstate) and room upgrade intents. All of it is GraphQL
// that only the operator token may call.
import { gql } from "./api.ts";
import { t, type StringKey } from "./strings.ts";
import { act, html, Table, useQuery, when } from "./ui.ts";

/** One operator list: its heading over the table. */
function Section<R>({ title, ...table }: { title: StringKey } & Omit<Parameters<typeof Table<R>>[0], "label">) {
  return html`<section class="panel" aria-labelledby=${`op-${title}`}>
    <h3 id=${`op-${title}`}>${t(title)}</h3>
    <${Table} label=${title} ...${table} />
  </section>`;
}

interface Failed {
  id: string;
  kind: string;
  siteId: string;
  pageSlug: string;
  attempts: number;
  reason: string | null;
  failedAt: string;
}
interface Repair {
  targetEventId: string;
  roomId: string | null;
  eventType: string | null;
  reason: string;
  status: string;
  attempts: number;
}
interface Quarantined {
  roomId: string;
  siteId: string;
  pageSlug: string;
  reason: string;
  firstQuarantinedAt: string;
}
interface Intent {
  roomId: string;
  siteId: string;
  pageSlug: string;
  targetVersion: string;
  state: string;
  error: string | null;
}
interface Operator {
  operatorQueue: { depth: number; failed: { edges: Array<{ node: Failed }> } };
  projectionRepairs: { data: Repair[] };
  quarantinedRooms: { data: Quarantined[] };
  roomUpgradeIntents: { data: Intent[] };
}

const OPERATOR = `{
  operatorQueue { depth failed(first: 100) { edges { node { id kind siteId pageSlug attempts reason failedAt } } } }
  projectionRepairs(perPage: 100) { data { targetEventId roomId eventType reason status attempts } }
  quarantinedRooms(perPage: 100) { data { roomId siteId pageSlug reason firstQuarantinedAt } }
  roomUpgradeIntents(perPage: 100) { data { roomId siteId pageSlug targetVersion state error } }
}`;

export function OperatorView() {
  const query = useQuery<Operator>(OPERATOR, {});
  const data = query.data;
  if (!data) return html`<p class="muted">${query.error ?? t("loading")}</p>`;
  const run = (mutation: string, variables: Record<string, unknown>, success: StringKey) =>
    void act(() => gql(mutation, variables), t(success)).then((ok) => ok && query.reload());
  const button = (label: StringKey, onClick: () => void) =>
    html`<button type="button" onClick=${onClick}>${t(label)}</button>`;
  return html`<section aria-labelledby="operator-title">
    <h1 id="operator-title">${t("operatorDesk")}</h1>
    <p class="panel" data-queue-depth=${data.operatorQueue.depth}>${t("queueDepth", { n: data.operatorQueue.depth })}</p>
    <${Section}
      title="failedSubmissions"
      empty="noFailed"
      rows=${data.operatorQueue.failed.edges.map((e) => e.node)}
      rowKey=${(f: Failed) => f.id}
      columns=${[
        ["site", (f: Failed) => `${f.siteId} / ${f.pageSlug}`],
        ["kind", (f: Failed) => f.kind],
        ["attempts", (f: Failed) => f.attempts],
        ["why", (f: Failed) => f.reason],
        ["failedAt", (f: Failed) => when(f.failedAt)],
        [
          "actions",
          (f: Failed) =>
            button("retry", () => run(`mutation R($id: String!) { retrySubmission(id: $id) }`, { id: f.id }, "queued")),
        ],
      ]}
    />
    <${Section}
      title="repairs"
      empty="noRepairs"
      rows=${data.projectionRepairs.data}
      rowKey=${(r: Repair) => r.targetEventId}
      columns=${[
        ["event", (r: Repair) => html`<span class="id">${r.targetEventId}</span> ${r.eventType}`],
        ["room", (r: Repair) => html`<span class="id">${r.roomId}</span>`],
        ["why", (r: Repair) => r.reason],
        ["status", (r: Repair) => r.status],
        ["attempts", (r: Repair) => r.attempts],
        [
          "actions",
          (r: Repair) =>
            r.status !== "resolved" &&
            button("retry", () =>
              run(
                `mutation R($id: String!) { retryProjectionRepair(targetEventId: $id) { status } }`,
                { id: r.targetEventId },
                "queued",
              ),
            ),
        ],
      ]}
    />
    <${Section}
      title="quarantine"
      empty="noQuarantine"
      rows=${data.quarantinedRooms.data}
      rowKey=${(q: Quarantined) => q.roomId}
      columns=${[
        ["site", (q: Quarantined) => `${q.siteId} / ${q.pageSlug}`],
        ["room", (q: Quarantined) => html`<span class="id">${q.roomId}</span>`],
        ["why", (q: Quarantined) => q.reason],
        ["since", (q: Quarantined) => when(q.firstQuarantinedAt)],
        [
          "actions",
          (q: Quarantined) =>
            button("reinstate", () =>
              run(`mutation R($id: String!) { reinstateRoom(roomId: $id) }`, { id: q.roomId }, "reinstated"),
            ),
        ],
      ]}
    />
    <${Section}
      title="intents"
      empty="noIntents"
      rows=${data.roomUpgradeIntents.data}
      rowKey=${(i: Intent) => i.roomId}
      columns=${[
        ["site", (i: Intent) => `${i.siteId} / ${i.pageSlug}`],
        ["room", (i: Intent) => html`<span class="id">${i.roomId}</span> → ${i.targetVersion}`],
        ["state", (i: Intent) => i.state],
        ["error", (i: Intent) => i.error],
      ]}
    />
  </section>`;
}
