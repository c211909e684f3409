// The project's migration runner on real SQLite and real PostgreSQL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { migrate, listMigrations } from "../../src/db/migrations.ts";
import { openDatabase } from "../../src/db/client.ts";
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
