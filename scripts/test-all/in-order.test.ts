import { describe, expect, it } from "vitest";
import { inOrder } from "./in-order.mjs";

function recorder() {
  const seen: string[] = [];
  return { seen, sink: { write: (stream: "out" | "err", chunk: string | Buffer) => void seen.push(`${stream}:${String(chunk)}`) } };
}

describe("inOrder", () => {
  it("lets the first output through as it comes and holds the others until those opened before them end", () => {
    const { seen, sink } = recorder();
    const show = inOrder(sink);
    const [a, b, c] = [show.open(), show.open(), show.open()];
    b.write("out", "b1");
    c.write("err", "c1");
    a.write("out", "a1");
    expect(seen).toEqual(["out:a1"]);
    c.write("out", "c2");
    c.end();
    a.write("err", "a2");
    a.end();
    expect(seen).toEqual(["out:a1", "err:a2", "out:b1"]);
    b.write("out", "b2");
    expect(seen).toEqual(["out:a1", "err:a2", "out:b1", "out:b2"]);
    b.end();
    expect(seen).toEqual(["out:a1", "err:a2", "out:b1", "out:b2", "err:c1", "out:c2"]);
  });

  it("shows a later output live once every one before it has ended", () => {
    const { seen, sink } = recorder();
    const show = inOrder(sink);
    show.open().end();
    const b = show.open();
    b.write("out", "b1");
    expect(seen).toEqual(["out:b1"]);
  });

  it("shows one opened after all the others ended live, and holds one opened while another still shows", () => {
    const { seen, sink } = recorder();
    const show = inOrder(sink);
    const a = show.open();
    a.end();
    const b = show.open();
    const c = show.open();
    c.write("out", "c1");
    b.write("out", "b1");
    expect(seen).toEqual(["out:b1"]);
    b.end();
    expect(seen).toEqual(["out:b1", "out:c1"]);
  });
});
