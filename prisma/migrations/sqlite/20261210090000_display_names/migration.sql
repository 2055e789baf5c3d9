-- One name per person: the name shown for a person (the administrator `local` too) where it is not their id.
CREATE TABLE "DisplayName" (
    "personId" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE UNIQUE INDEX "DisplayName_name_key" ON "DisplayName"("name");
