import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readStamp, sourceHash, writeStamp } from "./build-stamp.mjs";

let dir: string;
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
};

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("sourceHash", () => {
  const project = () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-stamp-"));
    write("app/page.tsx", "export default 1");
    write("lib/a.ts", "export const a = 1");
    write("server.ts", "import './lib/a'");
    write("public/icon.svg", "<svg/>");
  };

  it("changes with a source of its part, and only of its part", () => {
    project();
    const [next, server] = [sourceHash(dir, "next"), sourceHash(dir, "server")];
    write("app/page.tsx", "export default 2");
    expect(sourceHash(dir, "next")).not.toBe(next);
    expect(sourceHash(dir, "server")).toBe(server);
    write("lib/a.ts", "export const a = 2");
    expect(sourceHash(dir, "server")).not.toBe(server);
  });

  it("is not changed by tests, outputs, generated clients or the service worker the build writes", () => {
    project();
    const [next, server] = [sourceHash(dir, "next"), sourceHash(dir, "server")];
    write("lib/a.test.ts", "test");
    write("app/x.spec.tsx", "test");
    write("lib/generated/client.ts", "generated");
    write("public/sw.js", "built");
    write(".next/BUILD_ID", "x");
    write("dist/server.js", "x");
    write("node_modules/x/index.js", "x");
    expect([sourceHash(dir, "next"), sourceHash(dir, "server")]).toEqual([next, server]);
  });

  it("notices a file moved or removed, not only one edited", () => {
    project();
    const before = sourceHash(dir, "next");
    rmSync(path.join(dir, "lib/a.ts"));
    write("lib/b.ts", "export const a = 1");
    expect(sourceHash(dir, "next")).not.toBe(before);
  });

  it("keeps a stamp beside its part's output, and reads none where there is none", () => {
    project();
    expect(readStamp(dir, "server")).toBeNull();
    mkdirSync(path.join(dir, "dist"));
    writeStamp(dir, "server", { sources: "abc" });
    expect(readStamp(dir, "server")).toMatchObject({ sources: "abc" });
  });
});
