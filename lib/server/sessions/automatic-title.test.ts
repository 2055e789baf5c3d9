import { describe, expect, it } from "vitest";
import { automaticTitle } from "./automatic-title";

const functions = [
  { name: "chat", command: null },
  { name: "order-coffee", command: "coffee" },
  { name: "deploy", command: "deploy" },
  { name: "write-report", command: "report" },
];

describe("automatic titles", () => {
  it("take the first line of a real message, clipped", () => {
    expect(automaticTitle("  order   a\ncoffee ", functions)).toBe("order a coffee");
    const long = automaticTitle("x".repeat(100))!;
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.endsWith("…")).toBe(true);
    expect(automaticTitle("   ")).toBeNull();
  });

  it("a slash command that starts a function is titled after the function, arguments or not", () => {
    expect(automaticTitle("/coffee", functions)).toBe("Order coffee");
    expect(automaticTitle("  /Coffee  ", functions)).toBe("Order coffee");
    expect(automaticTitle("/order-coffee", functions)).toBe("Order coffee");
    expect(automaticTitle("   /deploy staging", functions)).toBe("Deploy");
    expect(automaticTitle("/report", functions)).toBe("Write report");
  });

  it("a slash command that starts no function gives no title", () => {
    expect(automaticTitle("/help", functions)).toBeNull();
    expect(automaticTitle("/nothing-here", functions)).toBeNull();
    expect(automaticTitle("/chat", functions)).toBeNull();
    expect(automaticTitle("/coffeemaker", functions)).toBeNull();
    expect(automaticTitle("/usr/bin/env", functions)).toBeNull();
    expect(automaticTitle("/coffee")).toBeNull();
  });
});
