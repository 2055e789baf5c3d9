-- AlterTable
ALTER TABLE "ChatSession" ADD COLUMN "deletedAt" DATETIME;
ALTER TABLE "ChatSession" ADD COLUMN "renamedAt" DATETIME;
