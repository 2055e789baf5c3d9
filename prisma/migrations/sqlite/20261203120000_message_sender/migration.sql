-- AlterTable
ALTER TABLE "Message" ADD COLUMN "sender" TEXT;
