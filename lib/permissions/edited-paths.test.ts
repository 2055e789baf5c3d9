import { describe, expect, it } from "vitest";
import { editedPathProblem, pathKeysOf, pathProblem } from "./edited-paths";

describe("pathProblem", () => {
  it("passes a relative path that stays inside, however written", () => {
    for (const p of ["a.ts", "./src/a.ts", "src/b/../a.ts", "src\\a.ts", "src//a.ts", "..a", "a..b/c"]) expect(pathProblem(p, []), p).toBeNull();
  });

  it("refuses climbing out, the home folder, absolute paths without a root, and control characters", () => {
    expect(pathProblem("..", [])).toMatch(/climbs out/);
    expect(pathProblem("a/../../b", [])).toMatch(/climbs out/);
    expect(pathProblem("a\\..\\..\\b", [])).toMatch(/climbs out/);
    expect(pathProblem("~/x", [])).toMatch(/home folder/);
    expect(pathProblem("/etc/passwd", [])).toMatch(/declared no root/);
    expect(pathProblem("c:/x", [])).toMatch(/declared no root/);
    expect(pathProblem("a\u0000b", [])).toMatch(/control character/);
    expect(pathProblem("a\u009bb", [])).toMatch(/control character/);
    expect(pathProblem("a\u007f", [])).toMatch(/control character/);
  });

  it("an absolute path under a declared root passes; a sibling with the same prefix or a climb out of it does not", () => {
    const roots = ["/home/me/proj", "C:\\work"];
    expect(pathProblem("/home/me/proj", roots)).toBeNull();
    expect(pathProblem("/home/me/proj/src/a.ts", roots)).toBeNull();
    expect(pathProblem("C:\\work\\a.txt", roots)).toBeNull();
    expect(pathProblem("/home/me/proj2/a.ts", roots)).toMatch(/outside the asker's roots/);
    expect(pathProblem("/home/me/proj/../x", roots)).toMatch(/outside/);
    expect(pathProblem("D:\\work\\a.txt", roots)).toMatch(/outside/);
    expect(pathProblem("/anything", ["/"])).toBeNull();
  });
});

describe("editedPathProblem", () => {
  const keys = pathKeysOf({ type: "object", properties: { out: { type: "string", format: "path" }, many: { type: "array", items: { type: "string", format: "path" } }, name: { type: "string" } } });

  it("reads the usual path fields and the fields the schema marks, at any depth and in lists", () => {
    expect([...keys]).toEqual(expect.arrayContaining(["path", "file_path", "notebook_path", "out", "many"]));
    expect(keys.has("name")).toBe(false);
    expect(editedPathProblem({ name: "../x" }, {}, { keys, roots: [] })).toBeNull();
    expect(editedPathProblem({ out: "../x" }, {}, { keys, roots: [] })).toMatch(/^\/out \("\.\.\/x"\) climbs out/);
    expect(editedPathProblem({ nested: [{ path: "/etc" }] }, {}, { keys, roots: [] })).toMatch(/^\/nested\/0\/path/);
    expect(editedPathProblem({ many: ["ok", "/etc/x"] }, {}, { keys, roots: [] })).toMatch(/^\/many/);
  });

  it("a value the answerer left as the agent asked it passes; a changed one is checked", () => {
    expect(editedPathProblem({ file_path: "/abs/a", content: "new" }, { file_path: "/abs/a", content: "old" }, { keys, roots: [] })).toBeNull();
    expect(editedPathProblem({ file_path: "/abs/b" }, { file_path: "/abs/a" }, { keys, roots: [] })).toMatch(/declared no root/);
    expect(editedPathProblem({ many: ["/abs/a", "/abs/b"] }, { many: ["/abs/a"] }, { keys, roots: [] })).toMatch(/many.*abs\/b/);
  });
});
