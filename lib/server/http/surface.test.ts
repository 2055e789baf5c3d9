import { describe, expect, it } from "vitest";
import { SURFACE_HEADER } from "../../protocol/rest";
import { surfaceOf } from "./json-route";

const request = (value?: string) => new Request("http://localhost/api/sessions/s/runs", { method: "POST", headers: value === undefined ? {} : { [SURFACE_HEADER]: value } });

describe("surfaceOf: who a run's starter line names", () => {
  it("is the CLI only when the CLI's header says exactly so", () => {
    expect(surfaceOf(request("cli"))).toBe("cli");
    for (const other of [undefined, "", "CLI", "cli, cli", "terminal", "rest"]) expect(surfaceOf(request(other))).toBe("rest");
  });
});
