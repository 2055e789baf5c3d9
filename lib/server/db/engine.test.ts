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
  it("recognises Prisma's P2002 and SQLite's constraint codes", () => {
    expect(isUniqueViolation({ code: "P2002" })).toBe(true);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_UNIQUE" })).toBe(true);
    expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" })).toBe(true);
  });

  it("recognises PostgreSQL's however it surfaces: a raw statement's P2010, the adapter's error, pg's 23505", () => {
    const cause = { originalCode: "23505", originalMessage: "duplicate key value violates unique constraint", kind: "UniqueConstraintViolation" };
    expect(isUniqueViolation({ code: "P2010", meta: { driverAdapterError: { name: "DriverAdapterError", cause } } })).toBe(true);
    expect(isUniqueViolation(Object.assign(new Error("DriverAdapterError"), { cause }))).toBe(true);
    expect(isUniqueViolation({ code: "23505", severity: "ERROR" })).toBe(true);
  });

  it("refuses everything else", () => {
    expect(isUniqueViolation(null)).toBe(false);
    expect(isUniqueViolation(new Error("boom"))).toBe(false);
    expect(isUniqueViolation({ code: "P2025" })).toBe(false);
    expect(isUniqueViolation({ code: "P2010", meta: { driverAdapterError: { cause: { kind: "ForeignKeyConstraintViolation", originalCode: "23503" } } } })).toBe(false);
  });
});
