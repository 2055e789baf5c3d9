import { describe, expect, it } from "vitest";
import { inOrder } from "./in-order.mjs";

function recorder() {
  const seen: string[] = [];
  return { seen, sink: { write: (stream: "out" | "err", chunk: string | Buffer) => void seen.push(`${stream}:${String(chunk)}`) } };
}

describe("inOrder", () => {
  it("shows the first output as it comes, a line at a time, and each other one whole as soon as it ends", () => {
    const { seen, sink } = recorder();
    const show = inOrder(sink);
    const [a, b, c] = [show.open(), show.open(), show.open()];
    b.write("out", "b1\n");
    a.write("out", "a1\na");
    expect(seen).toEqual(["out:a1\n"]);
    c.write("err", "c1\n");
    c.write("out", "c2");
    c.end();
    expect(seen).toEqual(["out:a1\n", "err:c1\n", "out:c2", "out:\n"]);
    a.write("out", "2\n");
    expect(seen.at(-1)).toBe("out:a2\n");
    b.write("out", "b2\n");
    a.end();
    expect(seen.slice(-2)).toEqual(["out:b1\n", "out:b2\n"]);
    b.write("err", "b3\n");
    expect(seen.at(-1)).toBe("err:b3\n");
  });

  it("lets the live output's unfinished line out when it ends", () => {
    const { seen, sink } = recorder();
    const show = inOrder(sink);
    const a = show.open();
    a.write("out", "no newline");
    expect(seen).toEqual([]);
    a.end();
    expect(seen).toEqual(["out:no newline"]);
  });

  it("shows one opened after all the others ended live, and holds one opened while another still shows", () => {
    const { seen, sink } = recorder();
    const show = inOrder(sink);
    show.open().end();
    const b = show.open();
    const c = show.open();
    c.write("out", "c1\n");
    b.write("out", "b1\n");
    expect(seen).toEqual(["out:b1\n"]);
    b.end();
    expect(seen).toEqual(["out:b1\n", "out:c1\n"]);
    c.write("out", "c2\n");
    expect(seen.at(-1)).toBe("out:c2\n");
  });
});
