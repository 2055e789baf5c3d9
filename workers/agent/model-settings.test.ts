import { describe, expect, it } from "vitest";
import { describeModel, modelSettings } from "./model-settings";
import { selectModel } from "./provider";

describe("model settings: one reading of the environment, said at start-up", () => {
  it("is the offline scripted model when nothing is set", () => {
    expect(describeModel(modelSettings({}))).toMatch(/^Model: scripted \(offline/);
    expect(selectModel({}).provider).toBe("scripted");
  });

  it("names the model, the server and the variables that chose them, never the key", () => {
    const env = { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1/", PARLEY_MODEL: "llama3.2", OPENAI_API_KEY: "sk-secret-123" };
    const line = describeModel(modelSettings(env));
    expect(line).toBe("Model: openai-compatible llama3.2 at http://127.0.0.1:11434/v1 (from OPENAI_BASE_URL, PARLEY_MODEL; with OPENAI_API_KEY)");
    expect(line).not.toContain("sk-secret");
    expect(selectModel(env).provider).toBe("openai-compatible llama3.2 at http://127.0.0.1:11434/v1");
    expect(describeModel(modelSettings({ PARLEY_PROVIDER: "openai" }))).toBe("Model: openai-compatible gpt-4o-mini at https://api.openai.com/v1 (from PARLEY_PROVIDER; no OPENAI_API_KEY set)");
  });

  it("PARLEY_PROVIDER=scripted wins over a base URL", () => {
    expect(modelSettings({ PARLEY_PROVIDER: "scripted", OPENAI_BASE_URL: "http://x/v1" }).provider).toBe("scripted");
  });
});
