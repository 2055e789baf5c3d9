import { describe, expect, it } from "vitest";
import { engineOf, isUniqueViolation } from "./client";

describe("engineOf", () => {
  it("tells SQLite and PostgreSQL URLs apart and refuses others", () => {
    expect(engineOf("file:./data/parley.db")).toBe("sqlite");
    expect(engineOf("postgresql://u@127.0.0.1:5432/parley")).toBe("postgresql");
    expect(engineOf("postgres://u:p@db/parley?sslmode=require")).toBe("postgresql");
    expect(() => engineOf("mysql://u@h/db")).toThrow(/file: URL or a postgres/);
  });
});

describe("isUniqueViolation", () => {
  it("recognises SQLite's constraint codes and PostgreSQL's 23505", () => {
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_UNIQUE" })).toBe(true);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" })).toBe(true);
    expect(isUniqueViolation({ code: "23505", severity: "ERROR" })).toBe(true);
  });

  it("refuses everything else", () => {
    expect(isUniqueViolation(null)).toBe(false);
    expect(isUniqueViolation(new Error("boom"))).toBe(false);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" })).toBe(false);
    expect(isUniqueViolation({ code: "23503" })).toBe(false);
  });
});
