-- SQLite only (written by hand: Prisma's schema has no WITHOUT ROWID). A list page's read looks
-- up a row of each of these tables by its primary key; in a rowid table that is two B-trees, the
-- key's index and then the table, two page reads each when the page is cold. Stored in key order
-- instead (WITHOUT ROWID), the row is in the key's leaf: one. Their rows are small (a member's
-- profile, a count, a state event's content) and they have no other index.
-- test/integration/sqlite-plans.test.ts fails should a later migration rebuild them with a rowid.

-- RedefineTables
CREATE TABLE "new_RoomMember" (
    "roomId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "membership" TEXT NOT NULL,
    "displayName" TEXT,
    "avatarUrl" TEXT,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("roomId", "userId")
) WITHOUT ROWID;
INSERT INTO "new_RoomMember" ("roomId", "userId", "membership", "displayName", "avatarUrl", "updatedAt")
    SELECT "roomId", "userId", "membership", "displayName", "avatarUrl", "updatedAt" FROM "RoomMember";
DROP TABLE "RoomMember";
ALTER TABLE "new_RoomMember" RENAME TO "RoomMember";

CREATE TABLE "new_RoomState" (
    "roomId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "stateKey" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "originServerTs" BIGINT NOT NULL,
    "content" TEXT NOT NULL,

    PRIMARY KEY ("roomId", "type", "stateKey")
) WITHOUT ROWID;
INSERT INTO "new_RoomState" ("roomId", "type", "stateKey", "eventId", "originServerTs", "content")
    SELECT "roomId", "type", "stateKey", "eventId", "originServerTs", "content" FROM "RoomState";
DROP TABLE "RoomState";
ALTER TABLE "new_RoomState" RENAME TO "RoomState";

CREATE TABLE "new_PageCommentCount" (
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("siteId", "pageSlug")
) WITHOUT ROWID;
INSERT INTO "new_PageCommentCount" ("siteId", "pageSlug", "count")
    SELECT "siteId", "pageSlug", "count" FROM "PageCommentCount";
DROP TABLE "PageCommentCount";
ALTER TABLE "new_PageCommentCount" RENAME TO "PageCommentCount";
