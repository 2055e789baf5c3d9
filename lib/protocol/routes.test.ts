import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_ROUTES, matchRoute } from "./routes";

const apiDir = path.resolve(import.meta.dirname, "../../app/api");

/** Every route file under app/api as `/api/a/:id` → the methods it exports. */
function routeFiles(dir = apiDir, prefix = "/api"): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name.startsWith("[...")) continue; // the catch-all 404
      const segment = entry.name.replace(/^\[(.+)\]$/, ":$1");
      for (const [p, m] of routeFiles(path.join(dir, entry.name), `${prefix}/${segment}`)) found.set(p, m);
    } else if (entry.name === "route.ts") {
      const source = readFileSync(path.join(dir, entry.name), "utf8");
      found.set(
        prefix,
        [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!),
      );
    }
  }
  return found;
}

describe("the route table", () => {
  it("lists exactly the route files under app/api and the methods they export", () => {
    const files = new Map([...routeFiles(), ...routeFiles(path.resolve(apiDir, "../mcp"), "/mcp")]);
    expect(Object.fromEntries([...files].sort())).toEqual(Object.fromEntries(API_ROUTES.map((r) => [r.path, [...r.methods]]).sort()));
  });

  it("matches paths with decoded parameters, and throws on malformed percent-encoding", () => {
    expect(matchRoute("/api/questions/a%20b/reply")).toMatchObject({ route: { path: "/api/questions/:id/reply" }, params: { id: "a b" } });
    expect(matchRoute("/api/questions/a/b/c")).toBeUndefined();
    expect(() => matchRoute("/api/questions/%ff")).toThrow(URIError);
  });
});
