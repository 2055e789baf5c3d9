import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { CommandBound } from "../protocol/permissions";

/**
 * Whether the commands Parley's tools run are sandboxed, decided once per process from the
 * environment: bubblewrap (`bwrap`) when it is installed and can make namespaces here, else none.
 * `PARLEY_SANDBOX=off` opts out on purpose; `PARLEY_BWRAP` names the program when it is not on PATH.
 */
export type SandboxMode = { kind: "bwrap"; bwrap: string } | { kind: "none"; why: "off" | "unavailable"; reason: string };

type Env = Record<string, string | undefined>;

/** The first executable `name` in these folders (a PATH's), or null. */
export function findProgram(name: string, folders: readonly string[]): string | null {
  for (const dir of folders) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Runs `true` in the namespaces commands get: user namespaces may be turned off (a container, a sysctl). */
function probe(bwrap: string): string | null {
  const result = spawnSync(bwrap, ["--ro-bind", "/", "/", "--unshare-all", "--unshare-user", "--die-with-parent", "--", "/bin/true"], { encoding: "utf8", timeout: 10_000 });
  if (result.error) return result.error.message;
  if (result.status !== 0) return (result.stderr || `it exited with ${result.status ?? result.signal}`).trim().split("\n")[0]!;
  return null;
}

export function detectSandbox(env: Env = process.env): SandboxMode {
  const setting = (env.PARLEY_SANDBOX ?? "").trim().toLowerCase();
  if (setting === "off") return { kind: "none", why: "off", reason: "PARLEY_SANDBOX=off" };
  if (setting !== "" && setting !== "auto") return { kind: "none", why: "unavailable", reason: `PARLEY_SANDBOX=${setting} is not "off" or "auto"` };
  const bwrap = env.PARLEY_BWRAP?.trim() || findProgram("bwrap", (env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":"));
  if (!bwrap) return { kind: "none", why: "unavailable", reason: "bubblewrap (bwrap) is not installed" };
  const failed = probe(bwrap);
  return failed ? { kind: "none", why: "unavailable", reason: `bubblewrap cannot run here (${failed})` } : { kind: "bwrap", bwrap };
}

let detected: { key: string; mode: SandboxMode } | null = null;

/** detectSandbox for this process's environment, probed once. */
export function sandboxMode(env: Env = process.env): SandboxMode {
  const key = `${env.PARLEY_SANDBOX ?? ""}\u0000${env.PARLEY_BWRAP ?? ""}\u0000${env.PATH ?? ""}`;
  if (detected?.key !== key) detected = { key, mode: detectSandbox(env) };
  return detected.mode;
}

/** The start-up line that says how commands run. */
export function sandboxStartupLine(mode: SandboxMode): string {
  if (mode.kind === "bwrap") return `commands run sandboxed (bubblewrap: ${mode.bwrap}): they can change only the workspace, with no network unless a call asks for it`;
  if (mode.why === "off") return "commands run NOT sandboxed (PARLEY_SANDBOX=off, an opt-out): a command reaches everything this server's user can";
  return `commands run NOT sandboxed: ${mode.reason}; every command is asked for every time (install bubblewrap, or set PARLEY_SANDBOX=off to say this is meant)`;
}

/** What a command run now can reach, as its card says it. */
export function commandBound(mode: SandboxMode, network: boolean): CommandBound {
  if (mode.kind === "bwrap") return network ? "network" : "sandboxed";
  return mode.why === "off" ? "opted-out" : "unsandboxed";
}
