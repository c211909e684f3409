// Finding a rebuild's rooms on the homeserver alone: the AS bot created (and so joined) every
// site's Space and page room, and a room upgrade joins it to the successor. Each room the bot
// joined (for one site: each room linked from its Space) is summarized from its state (one
// request, the state dropped at once); sites are the Spaces with a service alias
// (#<prefix><site_id>), pages the rooms with a page alias (#<prefix><site_id>_<page_slug>) or a
// Space's m.space.child; an upgraded page's rooms are chained through m.room.create
// predecessors and m.room.tombstone replacements, oldest first.
import type { Homeserver } from "../../matrix/homeserver.ts";
import { isValidPageSlug, isValidSiteId } from "../../core/identifiers.ts";
import { homeserverFailure } from "../../matrix/errors.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";

export interface PagePlan {
  pageSlug: string;
  /** Oldest first; the last is the page's active room. */
  rooms: Array<{ roomId: string; roomVersion: string }>;
}

export interface SitePlan {
  siteId: string;
  spaceRoomId: string;
  pages: PagePlan[];
}

interface RoomSummary {
  roomId: string;
  roomVersion: string;
  isSpace: boolean;
  predecessor: string | null;
  replacement: string | null;
  aliases: string[];
  name: string | null;
  children: string[];
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

async function summarize(hs: Homeserver, roomId: string): Promise<RoomSummary> {
  const summary: RoomSummary = {
    roomId,
    roomVersion: "1",
    isSpace: false,
    predecessor: null,
    replacement: null,
    aliases: [],
    name: null,
    children: [],
  };
  for (const event of await hs.roomState(roomId)) {
    const content = event.content ?? {};
    if (event.type === EventType.Create) {
      summary.roomVersion = text(content.room_version) ?? "1";
      summary.isSpace = content.type === "m.space";
      summary.predecessor = text((content.predecessor as { room_id?: unknown } | undefined)?.room_id);
    } else if (event.type === EventType.Tombstone) {
      summary.replacement = text(content.replacement_room);
    } else if (event.type === EventType.CanonicalAlias) {
      const alt = Array.isArray(content.alt_aliases) ? content.alt_aliases : [];
      summary.aliases = [content.alias, ...alt].filter((a): a is string => typeof a === "string");
    } else if (event.type === EventType.Name) {
      summary.name = text(content.name);
    } else if (event.type === EventType.SpaceChild && Array.isArray(content.via) && content.via.length > 0) {
      summary.children.push(event.state_key);
    }
  }
  return summary;
}

/** The service's site and page aliases, parsed (site ids and page slugs have no "_"). */
function parseAlias(
  alias: string,
  prefix: string,
  serverName: string,
): { siteId: string; pageSlug: string | null } | null {
  const suffix = `:${serverName}`;
  if (!alias.startsWith(`#${prefix}`) || !alias.endsWith(suffix)) return null;
  const [siteId, pageSlug, ...rest] = alias.slice(1 + prefix.length, -suffix.length).split("_");
  if (rest.length > 0 || !siteId || !isValidSiteId(siteId) || (pageSlug !== undefined && !isValidPageSlug(pageSlug)))
    return null;
  return { siteId, pageSlug: pageSlug ?? null };
}

/** The sites (all, or `onlySite`) with their Spaces and page rooms, by site id and page slug. */
export async function discoverSites(hs: Homeserver, onlySite: string | null): Promise<SitePlan[]> {
  const summaries = new Map<string, RoomSummary>();
  if (onlySite === null) {
    for (const roomId of await hs.joinedRooms(hs.names.botUserId)) summaries.set(roomId, await summarize(hs, roomId));
  } else {
    await summarizeSite(hs, onlySite, summaries);
  }
  return plansOf(summaries, onlySite, hs.names.prefix, hs.names.serverName);
}

/**
 * One site's rooms without reading every room the bot joined: its Space by alias, the Space's
 * children, and from each the rooms its upgrades link (tombstone forward, predecessor back).
 * A page room that never became a Space child is found by the full run only.
 */
async function summarizeSite(hs: Homeserver, siteId: string, summaries: Map<string, RoomSummary>): Promise<void> {
  let spaceRoomId: string;
  try {
    spaceRoomId = await hs.resolveAlias(hs.names.alias(hs.names.spaceAliasLocalpart(siteId)));
  } catch (err) {
    if (homeserverFailure(err) === "refused") return;
    throw err;
  }
  const pending = [spaceRoomId];
  for (let roomId = pending.pop(); roomId !== undefined; roomId = pending.pop()) {
    if (summaries.has(roomId)) continue;
    let room: RoomSummary;
    try {
      room = await summarize(hs, roomId);
    } catch (err) {
      // A linked room the bot may not read (an upgrade's successor it never joined) ends its chain.
      if (homeserverFailure(err) === "refused") continue;
      throw err;
    }
    summaries.set(roomId, room);
    pending.push(...room.children, ...[room.predecessor, room.replacement].filter((id): id is string => id !== null));
  }
}

function plansOf(
  summaries: Map<string, RoomSummary>,
  onlySite: string | null,
  prefix: string,
  serverName: string,
): SitePlan[] {
  const sites = new Map<string, SitePlan>();
  const childOf = new Map<string, string>();
  for (const room of summaries.values()) {
    if (!room.isSpace) continue;
    const site = room.aliases.map((a) => parseAlias(a, prefix, serverName)).find((p) => p && p.pageSlug === null);
    if (!site || (onlySite !== null && site.siteId !== onlySite)) continue;
    sites.set(site.siteId, { siteId: site.siteId, spaceRoomId: room.roomId, pages: [] });
    for (const child of room.children) childOf.set(child, site.siteId);
  }

  const successorOf = new Map<string, string>();
  for (const room of summaries.values()) {
    if (room.replacement && summaries.has(room.replacement)) successorOf.set(room.roomId, room.replacement);
    else if (room.predecessor && summaries.has(room.predecessor) && !successorOf.has(room.predecessor))
      successorOf.set(room.predecessor, room.roomId);
  }
  const predecessorOf = new Map([...successorOf].map(([from, to]) => [to, from]));

  const chained = new Set<string>();
  for (const room of summaries.values()) {
    if (room.isSpace || chained.has(room.roomId)) continue;
    // The page's oldest room, then forward to its newest, each room once (a cycle ends it).
    let oldest = room.roomId;
    for (
      const seen = new Set([oldest]);
      predecessorOf.has(oldest) && !seen.has(predecessorOf.get(oldest)!);
      seen.add(oldest)
    )
      oldest = predecessorOf.get(oldest)!;
    const chain: RoomSummary[] = [];
    for (let id: string | undefined = oldest; id && !chained.has(id); id = successorOf.get(id)) {
      chained.add(id);
      chain.push(summaries.get(id)!);
    }
    const page = pageOf(chain, childOf, prefix, serverName);
    const site = page && sites.get(page.siteId);
    if (!page || !site) continue;
    site.pages.push({
      pageSlug: page.pageSlug,
      rooms: chain.map((r) => ({ roomId: r.roomId, roomVersion: r.roomVersion })),
    });
  }
  const plans = [...sites.values()].sort((a, b) => a.siteId.localeCompare(b.siteId));
  for (const plan of plans) plan.pages.sort((a, b) => a.pageSlug.localeCompare(b.pageSlug));
  return plans;
}

/**
 * Which page a chain of rooms is: a page alias of its rooms (newest first: an upgrade moves
 * the alias), else a Space's child named `<site_id>/<page_slug>` as provisioning names them.
 */
function pageOf(
  chain: RoomSummary[],
  childOf: Map<string, string>,
  prefix: string,
  serverName: string,
): { siteId: string; pageSlug: string } | null {
  const newestFirst = [...chain].reverse();
  for (const room of newestFirst) {
    for (const alias of room.aliases) {
      const parsed = parseAlias(alias, prefix, serverName);
      if (parsed?.pageSlug) return { siteId: parsed.siteId, pageSlug: parsed.pageSlug };
    }
  }
  for (const room of newestFirst) {
    const siteId = childOf.get(room.roomId);
    const pageSlug = siteId && room.name?.startsWith(`${siteId}/`) ? room.name.slice(siteId.length + 1) : null;
    if (siteId && pageSlug && isValidPageSlug(pageSlug)) return { siteId, pageSlug };
  }
  return null;
}
