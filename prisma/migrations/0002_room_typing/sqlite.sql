-- CreateTable
CREATE TABLE "RoomTyping" (
    "roomId" TEXT NOT NULL PRIMARY KEY,
    "userIds" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

