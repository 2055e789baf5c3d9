import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeDatabase, serverFilePath } from "./server-file";

describe("where a server announces itself", () => {
  it("beside a SQLite file, as before", () => {
    expect(serverFilePath("file:./data/parley.db")).toBe(path.resolve("data/parley.db.server.json"));
    expect(serverFilePath("file::memory:")).toBeNull();
  });

  it("for PostgreSQL, in ./data under a hash of the database's address (not its password)", () => {
    const file = serverFilePath("postgresql://parley:secret@db.example:5432/parley")!;
    expect(path.dirname(file)).toBe(path.resolve("data"));
    expect(path.basename(file)).toMatch(/^postgresql-[0-9a-f]{16}\.server\.json$/);
    expect(serverFilePath("postgres://parley:other@DB.example/parley?sslmode=require")).toBe(file);
    expect(serverFilePath("postgresql://parley@db.example:5432/other")).not.toBe(file);
    expect(describeDatabase("postgresql://parley:secret@db.example:5432/parley")).not.toContain("secret");
  });
});
