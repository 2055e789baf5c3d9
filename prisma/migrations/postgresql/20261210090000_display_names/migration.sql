-- One name per person: the name shown for a person (the administrator `local` too) where it is not their id.
CREATE TABLE "DisplayName" (
    "personId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DisplayName_pkey" PRIMARY KEY ("personId")
);

CREATE UNIQUE INDEX "DisplayName_name_key" ON "DisplayName"("name");
