import { describe, expect, it } from "vitest";
import { API_ROUTES } from "@/lib/protocol/routes";
import { DIRECT_ROUTES } from "./direct-routes";

describe("the routes served without Next", () => {
  it("are routes of the table, each with every method its route answers", () => {
    for (const [path, module] of Object.entries(DIRECT_ROUTES)) {
      const route = API_ROUTES.find((r) => r.path === path);
      expect(route, path).toBeDefined();
      expect(
        Object.keys(module)
          .filter((k) => /^[A-Z]+$/.test(k))
          .sort(),
        path,
      ).toEqual([...route!.methods].sort());
    }
  });
});
