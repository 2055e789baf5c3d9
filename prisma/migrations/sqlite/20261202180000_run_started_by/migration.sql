-- AlterTable
ALTER TABLE "Run" ADD COLUMN "startedBy" TEXT;
