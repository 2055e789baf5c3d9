-- Grants that end: who made a rule, and when it stops applying (null: for good).
ALTER TABLE "PermissionRule" ADD COLUMN "createdBy" TEXT;
ALTER TABLE "PermissionRule" ADD COLUMN "expiresAt" TIMESTAMP(3);
