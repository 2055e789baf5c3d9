import { describe, expect, it } from "vitest";
import { commandBound, detectSandbox, sandboxStartupLine } from "./sandbox-mode";

describe("the sandbox's mode", () => {
  it("is off when PARLEY_SANDBOX=off, whatever is installed, and says so at start", () => {
    const mode = detectSandbox({ ...process.env, PARLEY_SANDBOX: "off" });
    expect(mode).toEqual({ kind: "none", why: "off", reason: "PARLEY_SANDBOX=off" });
    expect(sandboxStartupLine(mode)).toMatch(/NOT sandboxed \(PARLEY_SANDBOX=off/);
    expect(commandBound(mode, true)).toBe("opted-out");
  });

  it("is unavailable when bubblewrap is missing or cannot run, and says why and what to do", () => {
    const missing = detectSandbox({ PATH: "/nonexistent" });
    expect(missing).toEqual({ kind: "none", why: "unavailable", reason: "bubblewrap (bwrap) is not installed" });
    expect(sandboxStartupLine(missing)).toMatch(/NOT sandboxed: bubblewrap \(bwrap\) is not installed; every command is asked for every time \(install bubblewrap/);
    // A program that is there but fails (here: `false`, as bwrap fails without user namespaces).
    const failing = detectSandbox({ ...process.env, PARLEY_BWRAP: "/bin/false" });
    expect(failing).toMatchObject({ kind: "none", why: "unavailable", reason: expect.stringMatching(/^bubblewrap cannot run here/) });
    expect(commandBound(failing, false)).toBe("unsandboxed");
  });

  it("runs commands in bubblewrap where it works", ({ skip }) => {
    const mode = detectSandbox({ ...process.env, PARLEY_SANDBOX: undefined, PARLEY_BWRAP: undefined });
    if (mode.kind !== "bwrap") skip(`SKIPPED: ${sandboxStartupLine(mode)}`);
    expect(sandboxStartupLine(mode)).toMatch(/^commands run sandboxed \(bubblewrap: .*bwrap\)/);
    expect(commandBound(mode, false)).toBe("sandboxed");
    expect(commandBound(mode, true)).toBe("network");
  });
});
