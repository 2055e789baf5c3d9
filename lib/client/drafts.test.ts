import { describe, expect, it } from "vitest";
import { draftKey, readDraft, writeDraft } from "./drafts";

function memoryStorage() {
  const map = new Map<string, string>();
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
    map,
  };
}

describe("drafts", () => {
  it("keeps one draft per chat and forgets a blank one", () => {
    const storage = memoryStorage();
    writeDraft(storage, "a", "half a thought");
    writeDraft(storage, "b", "other chat");
    expect(readDraft(storage, "a")).toBe("half a thought");
    expect(readDraft(storage, "b")).toBe("other chat");
    writeDraft(storage, "a", "   ");
    expect(storage.map.has(draftKey("a"))).toBe(false);
    expect(readDraft(storage, "a")).toBe("");
  });

  it("works without storage, or with storage that refuses", () => {
    expect(readDraft(null, "a")).toBe("");
    const refusing = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("quota");
      },
      removeItem: () => {},
    };
    expect(() => writeDraft(refusing, "a", "x")).not.toThrow();
    expect(readDraft(refusing, "a")).toBe("");
  });
});
