import { describe, expect, it } from "vitest";
import { describeModel, modelInfo, modelSettings, OFFLINE_HINT } from "./model-settings";
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

  it("says the model in the chat's header: its name and where, never the key or a URL's credentials", () => {
    expect(modelInfo(modelSettings({}))).toEqual({ label: "Offline script", detail: OFFLINE_HINT, scripted: true });
    expect(modelInfo(modelSettings({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", PARLEY_MODEL: "llama3.2" }))).toEqual({
      label: "llama3.2 · 127.0.0.1:11434",
      detail: "The chat's model: llama3.2 at http://127.0.0.1:11434/v1",
      scripted: false,
    });
    const info = JSON.stringify(modelInfo(modelSettings({ OPENAI_BASE_URL: "https://ann:hunter2@models.example.com/v1", OPENAI_API_KEY: "sk-secret-123" })));
    expect(info).toContain("gpt-4o-mini · models.example.com");
    expect(info).not.toMatch(/hunter2|ann:|sk-secret/);
    expect(modelInfo(modelSettings({ PARLEY_PROVIDER: "openai" })).label).toBe("gpt-4o-mini · OpenAI");
  });

  it("PARLEY_PROVIDER=scripted wins over a base URL", () => {
    expect(modelSettings({ PARLEY_PROVIDER: "scripted", OPENAI_BASE_URL: "http://x/v1" }).provider).toBe("scripted");
  });
});
