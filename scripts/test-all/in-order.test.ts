import { describe, expect, it } from "vitest";
import { inOrder } from "./in-order.mjs";

function recorder() {
  const seen: string[] = [];
  return { seen, sink: { write: (stream: "out" | "err", chunk: string | Buffer) => void seen.push(`${stream}:${String(chunk)}`) } };
}

describe("inOrder", () => {
  it("lets the first output through as it comes and holds the others until those before them end", () => {
    const { seen, sink } = recorder();
    const [a, b, c] = inOrder(3, sink);
    b!.write("out", "b1");
    c!.write("err", "c1");
    a!.write("out", "a1");
    expect(seen).toEqual(["out:a1"]);
    c!.write("out", "c2");
    c!.end();
    a!.write("err", "a2");
    a!.end();
    expect(seen).toEqual(["out:a1", "err:a2", "out:b1"]);
    b!.write("out", "b2");
    expect(seen).toEqual(["out:a1", "err:a2", "out:b1", "out:b2"]);
    b!.end();
    expect(seen).toEqual(["out:a1", "err:a2", "out:b1", "out:b2", "err:c1", "out:c2"]);
  });

  it("shows a later output live once every one before it has ended", () => {
    const { seen, sink } = recorder();
    const [a, b] = inOrder(2, sink);
    a!.end();
    b!.write("out", "b1");
    expect(seen).toEqual(["out:b1"]);
  });
});
