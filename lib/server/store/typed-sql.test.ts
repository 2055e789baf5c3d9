import { describe, expect, it } from "vitest";
import { statement } from "./typed-sql";

const byStatus = statement((q, p: { status: string; limit: number }) => q.selectFrom("Run").select("id").where("status", "=", p.status).where("progress", "is", null).limit(p.limit));

describe("a statement written once", () => {
  it("compiles to each engine's placeholders, once, and binds each run's parameters in their places", () => {
    const sqlite = byStatus.compiled("sqlite");
    const pg = byStatus.compiled("postgresql");
    expect(sqlite.sql).toBe('select "id" from "Run" where "status" = ? and "progress" is null limit ?');
    expect(pg.sql).toBe('select "id" from "Run" where "status" = $1 and "progress" is null limit $2');
    expect(byStatus.compiled("sqlite")).toBe(sqlite);
    expect(sqlite.bind({ status: "running", limit: 5 })).toEqual(["running", 5]);
    expect(pg.bind({ status: "waiting_input", limit: 1 })).toEqual(["waiting_input", 1]);
  });

  it("keeps a value written into the statement as a constant parameter", () => {
    const finished = statement((q, p: { id: string }) => q.updateTable("Run").set({ status: "succeeded" }).where("id", "=", p.id));
    const { sql, bind } = finished.compiled("sqlite");
    expect(sql).toBe('update "Run" set "status" = ? where "id" = ?');
    expect(bind({ id: "r1" })).toEqual(["succeeded", "r1"]);
  });
});
