-- CreateTable
CREATE TABLE "RoomTyping" (
    "roomId" TEXT NOT NULL,
    "userIds" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RoomTyping_pkey" PRIMARY KEY ("roomId")
);

