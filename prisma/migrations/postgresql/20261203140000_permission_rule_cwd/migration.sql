-- AlterTable
ALTER TABLE "PermissionRule" ADD COLUMN "cwd" TEXT;
