import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reloadWorkersOnChange } from "./dev-reload";

describe("reloading the workers when a file under workers/ is saved", () => {
  let dir: string;
  let watcher: { close(): void } | undefined;
  afterEach(() => {
    watcher?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reloads once per burst of saves, with every file saved, in nested folders too; tests and other files do not count", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-dev-reload-"));
    mkdirSync(path.join(dir, "functions"));
    const reloads: string[][] = [];
    watcher = reloadWorkersOnChange([dir], (files) => reloads.push(files.sort()), { settleMs: 100 });
    writeFileSync(path.join(dir, "functions", "chat.test.ts"), "test");
    writeFileSync(path.join(dir, "notes.md"), "notes");
    await new Promise((r) => setTimeout(r, 300));
    expect(reloads).toEqual([]);

    writeFileSync(path.join(dir, "functions", "interview.ts"), "a");
    writeFileSync(path.join(dir, "functions", "interview.ts"), "b");
    writeFileSync(path.join(dir, "agent-worker.ts"), "c");
    await new Promise((r) => setTimeout(r, 400));
    expect(reloads).toEqual([[path.join(dir, "agent-worker.ts"), path.join(dir, "functions", "interview.ts")]]);
  });
});
