// The project's migration runner on real SQLite and real PostgreSQL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { migrate, listMigrations } from "../../src/db/migrations.ts";
import { openDatabase } from "../../src/db/client.ts";
import { reactionSummaries, storedSummaries } from "../../src/projection/annotations.ts";
import { freshDatabase, PROVIDERS } from "../support/harness.ts";

for (const provider of PROVIDERS) {
  test(`migrations apply once and the Prisma client works on ${provider}`, async () => {
    const database = await freshDatabase(provider);
    try {
      const all = listMigrations(provider).map((m) => m.name);
      assert.deepEqual(await migrate(database.url), all);
      assert.deepEqual(await migrate(database.url), [], "a second run applies nothing");
      const db = await openDatabase(database.url);
      try {
        await db.site.create({ data: { id: "migrated", source: "api" } });
        await db.comment.create({
          data: {
            eventId: "$e1",
            roomId: "!r",
            siteId: "migrated",
            pageSlug: "p",
            sender: "@a:b",
            authorType: "matrix",
            content: "{}",
            originServerTs: 1_795_000_000_000n,
          },
        });
        const comment = await db.comment.findUniqueOrThrow({ where: { eventId: "$e1" } });
        assert.equal(comment.originServerTs, 1_795_000_000_000n);
        assert.equal(comment.status, "published");
      } finally {
        await db.$disconnect();
      }
    } finally {
      await database.drop();
    }
  });
}

for (const provider of PROVIDERS) {
  test(`0012 fills the stored reaction summaries of comments projected before it on ${provider}`, async () => {
    // Keys in the order of their first reaction (not of their rows), counted per distinct user.
    const reactions = [
      { eventId: "$x1", sender: "@u1:b", key: "👍", originServerTs: 30n },
      { eventId: "$x2", sender: "@u2:b", key: "🎉", originServerTs: 20n },
      { eventId: "$x3", sender: "@u1:b", key: "🎉", originServerTs: 40n },
      { eventId: "$x4", sender: "@u1:b", key: "👍", originServerTs: 50n },
      { eventId: "$x5", sender: "@u3:b", key: "a", originServerTs: 20n },
    ];
    const database = await freshDatabase(provider);
    try {
      await migrate(database.url);
      const before = await openDatabase(database.url);
      try {
        // The database as 0011 left it: no summary column, Reaction rows in place.
        await before.$executeRawUnsafe(`ALTER TABLE "Comment" DROP COLUMN "reactionSummary"`);
        await before.$executeRawUnsafe(`DELETE FROM "_service_migrations" WHERE "name" = '0012_reaction_summary'`);
        await before.$executeRawUnsafe(
          `INSERT INTO "Site" ("id", "source", "updatedAt") VALUES ('s', 'api', CURRENT_TIMESTAMP)`,
        );
        for (const eventId of ["$reacted", "$plain"]) {
          await before.$executeRaw`INSERT INTO "Comment" ("eventId", "roomId", "siteId", "pageSlug", "sender", "authorType", "content", "originServerTs") VALUES (${eventId}, '!r', 's', 'p', '@a:b', 'matrix', '{}', 1)`;
        }
        await before.reaction.createMany({
          data: reactions.map((r) => ({ ...r, targetEventId: "$reacted", roomId: "!r" })),
        });
      } finally {
        await before.$disconnect();
      }
      assert.deepEqual(await migrate(database.url), ["0012_reaction_summary"]);
      const db = await openDatabase(database.url);
      try {
        const summary = async (eventId: string) =>
          JSON.parse((await db.comment.findUniqueOrThrow({ where: { eventId } })).reactionSummary);
        const expected = [
          { key: "a", count: 1 },
          { key: "🎉", count: 2 },
          { key: "👍", count: 1 },
        ];
        assert.deepEqual(await summary("$reacted"), expected);
        assert.deepEqual(
          JSON.parse(storedSummaries(reactionSummaries(reactions, null))),
          expected,
          "the projection stores the same",
        );
        assert.deepEqual(await summary("$plain"), []);
      } finally {
        await db.$disconnect();
      }
    } finally {
      await database.drop();
    }
  });
}

for (const provider of PROVIDERS) {
  test(`0018 fills the reaction counts of comments projected before it on ${provider}`, async () => {
    const database = await freshDatabase(provider);
    try {
      await migrate(database.url);
      const before = await openDatabase(database.url);
      const index =
        provider === "sqlite"
          ? "Comment_siteId_pageSlug_reactionCount_originServerTs_eventId_idx"
          : "Comment_siteId_pageSlug_reactionCount_originServerTs_eventI_idx";
      try {
        // The database as 0013 left it: stored summaries, no count.
        await before.$executeRawUnsafe(`DROP INDEX "${index}"`);
        await before.$executeRawUnsafe(`ALTER TABLE "Comment" DROP COLUMN "reactionCount"`);
        await before.$executeRawUnsafe(`DELETE FROM "_service_migrations" WHERE "name" = '0018_top_order'`);
        await before.$executeRawUnsafe(
          `INSERT INTO "Site" ("id", "source", "updatedAt") VALUES ('s', 'api', CURRENT_TIMESTAMP)`,
        );
        const summaries = {
          $reacted: storedSummaries(
            reactionSummaries(
              [
                { sender: "@u1:b", key: "👍", originServerTs: 1n },
                { sender: "@u2:b", key: "👍", originServerTs: 2n },
                { sender: "@u1:b", key: "🎉", originServerTs: 3n },
              ],
              null,
            ),
          ),
          $plain: "[]",
        };
        for (const [eventId, summary] of Object.entries(summaries)) {
          await before.$executeRaw`INSERT INTO "Comment" ("eventId", "roomId", "siteId", "pageSlug", "sender", "authorType", "content", "originServerTs", "reactionSummary") VALUES (${eventId}, '!r', 's', 'p', '@a:b', 'matrix', '{}', 1, ${summary})`;
        }
      } finally {
        await before.$disconnect();
      }
      assert.deepEqual(await migrate(database.url), ["0018_top_order"]);
      const db = await openDatabase(database.url);
      try {
        const count = async (eventId: string) =>
          (await db.comment.findUniqueOrThrow({ where: { eventId } })).reactionCount;
        assert.equal(await count("$reacted"), 3, "the sum of the summaries' counts");
        assert.equal(await count("$plain"), 0);
      } finally {
        await db.$disconnect();
      }
    } finally {
      await database.drop();
    }
  });

  if (provider === "sqlite")
    test("0021 stores RoomMember, RoomState and PageCommentCount without a rowid on sqlite, rows kept", async () => {
      const database = await freshDatabase(provider);
      const name = "0021_sqlite_clustered_keys";
      try {
        await migrate(database.url);
        const before = await openDatabase(database.url);
        const withoutRowid = async (db: typeof before) =>
          (
            (await db.$queryRawUnsafe(
              `SELECT "name" FROM sqlite_schema WHERE "type" = 'table' AND "sql" LIKE '%WITHOUT ROWID' ORDER BY "name"`,
            )) as Array<{ name: string }>
          ).map((row) => row.name);
        try {
          assert.deepEqual(await withoutRowid(before), ["PageCommentCount", "RoomMember", "RoomState"]);
          // The tables as 0020 left them (0021's own rebuild, with rowids), and rows in them.
          const migration = listMigrations("sqlite").find((m) => m.name === name)!;
          await before.$executeRawUnsafe(`DELETE FROM "_service_migrations" WHERE "name" = '${name}'`);
          for (const statement of migration.sql
            .replace(/^--.*$/gm, "")
            .replaceAll(" WITHOUT ROWID", "")
            .split(";")
            .filter((s) => /\S/.test(s)))
            await before.$executeRawUnsafe(statement);
          assert.deepEqual(await withoutRowid(before), []);
          await before.roomMember.create({
            data: { roomId: "!r", userId: "@u:b", membership: "join", displayName: "Ü", avatarUrl: "mxc://b/a" },
          });
          await before.roomState.create({
            data: {
              roomId: "!r",
              type: "m.room.name",
              stateKey: "",
              eventId: "$n",
              originServerTs: 5n,
              content: '{"name":"N"}',
            },
          });
          await before.pageCommentCount.create({ data: { siteId: "s", pageSlug: "p", count: 7 } });
        } finally {
          await before.$disconnect();
        }
        assert.deepEqual(await migrate(database.url), [name]);
        const db = await openDatabase(database.url);
        try {
          assert.deepEqual(await withoutRowid(db), ["PageCommentCount", "RoomMember", "RoomState"]);
          const member = await db.roomMember.findUniqueOrThrow({
            where: { roomId_userId: { roomId: "!r", userId: "@u:b" } },
          });
          assert.deepEqual([member.membership, member.displayName, member.avatarUrl], ["join", "Ü", "mxc://b/a"]);
          const state = await db.roomState.findUniqueOrThrow({
            where: { roomId_type_stateKey: { roomId: "!r", type: "m.room.name", stateKey: "" } },
          });
          assert.deepEqual([state.eventId, state.originServerTs, state.content], ["$n", 5n, '{"name":"N"}']);
          const count = await db.pageCommentCount.findUniqueOrThrow({
            where: { siteId_pageSlug: { siteId: "s", pageSlug: "p" } },
          });
          assert.equal(count.count, 7);
          // Prisma's writes work on them: an upsert that updates, one that creates.
          await db.pageCommentCount.upsert({
            where: { siteId_pageSlug: { siteId: "s", pageSlug: "p" } },
            create: { siteId: "s", pageSlug: "p", count: 1 },
            update: { count: { increment: 1 } },
          });
          await db.pageCommentCount.upsert({
            where: { siteId_pageSlug: { siteId: "s", pageSlug: "q" } },
            create: { siteId: "s", pageSlug: "q", count: 1 },
            update: { count: { increment: 1 } },
          });
          assert.deepEqual(
            (await db.pageCommentCount.findMany({ orderBy: { pageSlug: "asc" } })).map((row) => [
              row.pageSlug,
              row.count,
            ]),
            [
              ["p", 8],
              ["q", 1],
            ],
          );
        } finally {
          await db.$disconnect();
        }
      } finally {
        await database.drop();
      }
    });
}
