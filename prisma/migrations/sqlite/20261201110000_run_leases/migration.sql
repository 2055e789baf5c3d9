-- AlterTable
ALTER TABLE "Run" ADD COLUMN "leaseEpoch" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Run" ADD COLUMN "leaseOwner" TEXT;
ALTER TABLE "Run" ADD COLUMN "leaseUntil" DATETIME;

-- CreateTable
CREATE TABLE "NodeLease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "until" DATETIME NOT NULL,
    "epoch" INTEGER NOT NULL DEFAULT 0
);

-- CreateIndex
CREATE INDEX "Run_leaseOwner_leaseUntil_idx" ON "Run"("leaseOwner", "leaseUntil");
