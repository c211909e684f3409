// The Site aggregate (a site and its origins): every query of the sites and operator features.
import type { Db, Prisma } from "../../db/client.ts";
import { driverStatements } from "../../db/client.ts";
import { asDate } from "../../db/driver-statements.ts";
import type { SiteDeclaration } from "../../config/config.ts";

const WITH_ORIGINS = { origins: { select: { origin: true, source: true } } } as const;
export type SiteRow = Prisma.SiteGetPayload<{ include: typeof WITH_ORIGINS }>;

/** The selection a Pothos `t.prismaField` resolver passes for the fields the query asked for. */
export type SiteQuery = { include?: Prisma.SiteInclude; select?: Prisma.SiteSelect };

/** A site with its origins, as the gates and the GraphQL site fields use it. */
export interface SiteWithOrigins {
  id: string;
  source: string;
  status: string;
  spaceRoomId: string | null;
  hmacSecret: string | null;
  idGenerated: boolean;
  claimTokenHash: string | null;
  origins: { origin: string; source: string }[];
}

/** The site-write gate's row: the site's columns, one of its origins (none: nulls), the page's retiring flag (drivers give 0/1 or booleans). */
type WriteGateRow = Omit<SiteWithOrigins, "origins" | "idGenerated"> & {
  idGenerated: boolean | number;
  origin: string | null;
  originSource: string | null;
  pageRetiring: boolean | number;
};

const WRITE_GATE = `SELECT s."id", s."source", s."status", s."spaceRoomId", s."hmacSecret", s."idGenerated", s."claimTokenHash", o."origin", o."source" AS "originSource",
  EXISTS (SELECT 1 FROM "Room" r WHERE r."siteId" = s."id" AND r."pageSlug" = $2 AND r."state" = 'retiring') AS "pageRetiring"
FROM "Site" s LEFT JOIN "SiteOrigin" o ON o."siteId" = s."id" WHERE s."id" = $1`;

/** A page of sites by id with their origins (a row per origin) and the count of all the sites asked for ($3: one site). */
const sitePage = (
  where: string,
) => `SELECT s."id", s."source", s."idGenerated", s."claimTokenHash", s."status", s."spaceRoomId", s."hmacSecret", s."pageUrlPattern", s."createdAt", s."updatedAt", s."total", o."origin", o."source" AS "originSource"
FROM (SELECT *, COUNT(*) OVER () AS "total" FROM "Site"${where} ORDER BY "id" LIMIT $1 OFFSET $2) s
LEFT JOIN "SiteOrigin" o ON o."siteId" = s."id" ORDER BY s."id", o."origin"`;
const SITE_PAGE_ALL = sitePage("");
const SITE_PAGE_ONE = sitePage(` WHERE "id" = $3`);

/** A row of the site page (drivers give 0/1 or booleans, text or dates, numbers or text for the count). */
type SitePageRow = Omit<SiteRow, "origins" | "idGenerated" | "createdAt" | "updatedAt"> & {
  idGenerated: boolean | number;
  createdAt: string | Date;
  updatedAt: string | Date;
  total: number | string;
  origin: string | null;
  originSource: string | null;
};

export class SiteStore {
  constructor(private readonly db: Db) {}

  /** The site exists as declared, with exactly the declared config origins (one transaction). */
  async syncDeclaration(decl: SiteDeclaration): Promise<void> {
    await this.db.$transaction(async (tx) => {
      // A declared page URL pattern replaces the owner's; without one the owner's stays.
      const pattern = decl.pageUrlPattern === null ? {} : { pageUrlPattern: decl.pageUrlPattern };
      await tx.site.upsert({
        where: { id: decl.siteId },
        create: { id: decl.siteId, source: "config", ...pattern },
        update: { source: "config", ...pattern },
      });
      await tx.siteOrigin.deleteMany({
        where: { siteId: decl.siteId, source: "config", origin: { notIn: decl.origins } },
      });
      for (const origin of decl.origins) {
        await tx.siteOrigin.upsert({
          where: { siteId_origin: { siteId: decl.siteId, origin } },
          create: { siteId: decl.siteId, origin, source: "config" },
          update: {},
        });
      }
    });
  }

  /** Drops the config origins of sites no longer declared. */
  async dropConfigOriginsExcept(declaredSiteIds: string[]): Promise<void> {
    await this.db.siteOrigin.deleteMany({ where: { source: "config", siteId: { notIn: declaredSiteIds } } });
  }

  /** Throws a unique violation when the id is taken. */
  async createRegistered(siteId: string, idGenerated: boolean, claimTokenHash: string): Promise<void> {
    await this.db.site.create({ data: { id: siteId, source: "api", idGenerated, claimTokenHash } });
  }

  /** The page URL pattern the owner set (null: none; undefined: no such site). */
  async pageUrlPattern(siteId: string): Promise<string | null | undefined> {
    const site = await this.db.site.findUnique({ where: { id: siteId }, select: { pageUrlPattern: true } });
    return site === null ? undefined : site.pageUrlPattern;
  }

  /** Sets the site's page URL pattern (null: none); false when the site is not active. */
  async setPageUrlPattern(siteId: string, pattern: string | null): Promise<boolean> {
    const { count } = await this.db.site.updateMany({
      where: { id: siteId, status: "active" },
      data: { pageUrlPattern: pattern },
    });
    return count > 0;
  }

  find(siteId: string): Promise<SiteRow | null> {
    return this.db.site.findUnique({ where: { id: siteId }, include: WITH_ORIGINS });
  }

  /** A site with its origins ordered by origin (the bot's status answer). */
  findWithSortedOrigins(siteId: string): Promise<SiteRow | null> {
    return this.db.site.findUnique({
      where: { id: siteId },
      include: { origins: { select: { origin: true, source: true }, orderBy: { origin: "asc" } } },
    });
  }

  /** On the path of every public read: a statement prepared on the driver (src/db/driver-statements.ts). */
  async status(siteId: string): Promise<{ id: string; status: string } | null> {
    const [row] = await driverStatements(this.db).all<{ id: string; status: string }>(
      `SELECT "id", "status" FROM "Site" WHERE "id" = $1`,
      [siteId],
    );
    return row ?? null;
  }

  /**
   * On the path of every write, one statement on the driver: the site with its origins (a row per
   * origin), and whether the page, when given, has a room being retired.
   */
  async forWrite(
    siteId: string,
    pageSlug: string | null,
  ): Promise<{ site: SiteWithOrigins; pageRetiring: boolean } | null> {
    const rows = await driverStatements(this.db).all<WriteGateRow>(WRITE_GATE, [siteId, pageSlug]);
    const [row] = rows;
    if (!row) return null;
    const origins = rows.flatMap((r) => (r.origin === null ? [] : [{ origin: r.origin, source: r.originSource! }]));
    const site = {
      id: row.id,
      source: row.source,
      status: row.status,
      spaceRoomId: row.spaceRoomId,
      hmacSecret: row.hmacSecret,
      idGenerated: Boolean(row.idGenerated),
      claimTokenHash: row.claimTokenHash,
      origins,
    };
    return { site, pageRetiring: Boolean(row.pageRetiring) };
  }

  async spaceRoomId(siteId: string): Promise<string | null> {
    return (
      (await this.db.site.findUnique({ where: { id: siteId }, select: { spaceRoomId: true } }))?.spaceRoomId ?? null
    );
  }

  /** Whether the room is some site's Space. */
  async isSpace(roomId: string): Promise<boolean> {
    return (await this.db.site.count({ where: { spaceRoomId: roomId } })) > 0;
  }

  /** The site's Space; throws when the site is not registered. */
  async spaceRoomIdOrThrow(siteId: string): Promise<string | null> {
    return (await this.db.site.findUniqueOrThrow({ where: { id: siteId }, select: { spaceRoomId: true } })).spaceRoomId;
  }

  async setSpaceRoomId(siteId: string, spaceRoomId: string): Promise<void> {
    await this.db.site.update({ where: { id: siteId }, data: { spaceRoomId } });
  }

  /** Sets the HMAC secret; with `replace` false only where there is none. False when nothing was set. */
  async setSecret(siteId: string, secret: string, replace: boolean): Promise<boolean> {
    const { count } = await this.db.site.updateMany({
      where: replace ? { id: siteId } : { id: siteId, hmacSecret: null },
      data: { hmacSecret: secret },
    });
    return count > 0;
  }

  async replaceSecret(siteId: string, secret: string): Promise<void> {
    await this.db.site.update({ where: { id: siteId }, data: { hmacSecret: secret } });
  }

  removeSecret(siteId: string): Promise<SiteRow> {
    return this.db.site.update({ where: { id: siteId }, data: { hmacSecret: null }, include: WITH_ORIGINS });
  }

  /** Replaces the claim token's hash of an active site; false when the site is missing or retiring. */
  async setClaimTokenHash(siteId: string, claimTokenHash: string): Promise<boolean> {
    const { count } = await this.db.site.updateMany({
      where: { id: siteId, status: "active" },
      data: { claimTokenHash },
    });
    return count > 0;
  }

  /** False when the site had no such origin. */
  async deleteOrigin(siteId: string, origin: string): Promise<boolean> {
    const { count } = await this.db.siteOrigin.deleteMany({ where: { siteId, origin } });
    return count > 0;
  }

  /** One page of sites (all, or the one with `siteId`) by id, and how many there are: on the operator's list, one driver statement. */
  async page(siteId: string | null, skip: number, take: number): Promise<{ total: number; rows: SiteRow[] }> {
    const found = await driverStatements(this.db).all<SitePageRow>(
      siteId === null ? SITE_PAGE_ALL : SITE_PAGE_ONE,
      siteId === null ? [take, skip] : [take, skip, siteId],
    );
    const rows = new Map<string, SiteRow>();
    for (const row of found) {
      let site = rows.get(row.id);
      if (!site) {
        site = {
          id: row.id,
          source: row.source,
          idGenerated: Boolean(row.idGenerated),
          claimTokenHash: row.claimTokenHash,
          status: row.status,
          spaceRoomId: row.spaceRoomId,
          hmacSecret: row.hmacSecret,
          pageUrlPattern: row.pageUrlPattern,
          createdAt: asDate(row.createdAt)!,
          updatedAt: asDate(row.updatedAt)!,
          origins: [],
        };
        rows.set(row.id, site);
      }
      if (row.origin !== null) site.origins.push({ origin: row.origin, source: row.originSource! });
    }
    // A page past the end has no row to carry the total.
    const [first] = found;
    const total = first
      ? Number(first.total)
      : await this.db.site.count({ where: siteId === null ? {} : { id: siteId } });
    return { total, rows: [...rows.values()] };
  }

  /** A site shaped as a GraphQL query selects it. */
  findForQuery(query: SiteQuery, siteId: string) {
    return this.db.site.findUnique({ ...query, where: { id: siteId } });
  }

  findOrThrowForQuery(query: SiteQuery, siteId: string) {
    return this.db.site.findUniqueOrThrow({ ...query, where: { id: siteId } });
  }

  /** Every site by id, shaped as a GraphQL query selects them. */
  listForQuery(query: SiteQuery) {
    return this.db.site.findMany({ ...query, orderBy: { id: "asc" } });
  }
}
