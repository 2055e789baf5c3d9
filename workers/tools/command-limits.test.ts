import { describe, expect, it } from "vitest";
import { commandLimitsLine, joinCgroupWords, prlimitWords } from "./command-limits";

describe("what holds a command to its limits", () => {
  it("says at start-up what holds each command, and when nothing holds its process count", () => {
    expect(commandLimitsLine({ cgroup: true, prlimit: true, root: true })).toBe("each command may use at most 512 processes and 2 GiB of memory, files up to 1 GiB (a control group of its own)");
    expect(commandLimitsLine({ cgroup: false, prlimit: true, root: false })).toMatch(/^each command may use at most 512 processes .*\(prlimit; no control group/);
    expect(commandLimitsLine({ cgroup: false, prlimit: true, root: true })).toMatch(/NO process limit: .*root past RLIMIT_NPROC/);
    expect(commandLimitsLine({ cgroup: false, prlimit: false, root: false })).toMatch(/^commands have NO process or memory limit/);
  });

  it("the words that apply them: a shell joining the cgroups before exec, prlimit inside", () => {
    expect(joinCgroupWords([])).toEqual([]);
    expect(joinCgroupWords(["/sys/fs/cgroup/a"]).slice(-2)).toEqual(["/sys/fs/cgroup/a", "--"]);
    expect(prlimitWords(null)).toEqual([]);
    expect(prlimitWords("/usr/bin/prlimit")).toEqual(["/usr/bin/prlimit", "--nproc=512", `--data=${2 * 1024 ** 3}`, `--fsize=${1024 ** 3}`, "--"]);
  });
});
