import { describe, expect, it } from "vitest";
import type { ShownNotification, ShowOptions, SwRegistration } from "./sw-env";
import { oneAtATime } from "./sw-one-at-a-time";

/** A registration whose calls settle when the test says, recording when each starts. */
function heldRegistration() {
  const log: string[] = [];
  const held: { settle: (fail?: boolean) => void }[] = [];
  const hold = <T>(name: string, value: T) =>
    new Promise<T>((resolve, reject) => {
      log.push(`start ${name}`);
      held.push({ settle: (fail) => (fail ? reject(new Error(`${name} failed`)) : resolve(value)) });
    });
  const registration: SwRegistration = {
    showNotification: (title) => hold(`show ${title}`, undefined),
    getNotifications: (filter) => hold<ShownNotification[]>(`get ${filter?.tag ?? "all"}`, []),
    pushManager: { subscribe: async () => ({ endpoint: "https://push.example/1", toJSON: () => ({}) }) },
  };
  return { registration, log, held };
}

const options = { tag: "q1" } as ShowOptions;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the worker's notification calls, one at a time", () => {
  it("reads no notifications while one is being shown: a read waits until the show has settled", async () => {
    const { registration, log, held } = heldRegistration();
    const serial = oneAtATime(registration);
    const shown = serial.showNotification("q1", options);
    const read = serial.getNotifications({ tag: "q2" });
    await tick();
    expect(log).toEqual(["start show q1"]);

    held[0]!.settle();
    await shown;
    await tick();
    expect(log).toEqual(["start show q1", "start get q2"]);
    held[1]!.settle();
    expect(await read).toEqual([]);
  });

  it("keeps their order, and a call that failed holds up none after it", async () => {
    const { registration, log, held } = heldRegistration();
    const serial = oneAtATime(registration);
    const calls = [serial.getNotifications({ tag: "q1" }), serial.showNotification("q2", options), serial.showNotification("q3", options)];
    await tick();
    expect(log).toEqual(["start get q1"]);
    held[0]!.settle(true);
    await expect(calls[0]).rejects.toThrow("get q1 failed");
    await tick();
    expect(log).toEqual(["start get q1", "start show q2"]);
    held[1]!.settle();
    await tick();
    held[2]!.settle();
    await Promise.all(calls.slice(1));
    expect(log).toEqual(["start get q1", "start show q2", "start show q3"]);
  });

  it("leaves the push manager as it is", () => {
    const { registration } = heldRegistration();
    expect(oneAtATime(registration).pushManager).toBe(registration.pushManager);
  });
});
