import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { MessageInput } from "./MessageInput";

describe("MessageInput (rendered by ink)", () => {
  it("sends the text when Enter arrives in the same tick as the typing", async () => {
    const onSend = vi.fn(async () => ({ ok: true as const, data: null }));
    const { stdin, lastFrame } = render(<MessageInput onSend={onSend} onStop={null} />);
    stdin.write("hello");
    stdin.write("\r");
    await vi.waitFor(() => expect(onSend).toHaveBeenCalledWith("hello"));
    await vi.waitFor(() => expect(lastFrame()).not.toContain("hello"));
  });

  it("keeps a refused message and says why", async () => {
    const onSend = vi.fn(async () => ({ ok: false as const, error: { code: "session_busy" as const, message: "The agent is still working." } }));
    const { stdin, lastFrame } = render(<MessageInput onSend={onSend} onStop={null} />);
    stdin.write("again\r");
    await vi.waitFor(() => expect(lastFrame()).toContain("The agent is still working."));
    expect(lastFrame()).toContain("› again");
  });

  it("Esc stops the running work when there is some", async () => {
    const onStop = vi.fn();
    const { stdin } = render(<MessageInput onSend={vi.fn()} onStop={onStop} />);
    stdin.write("\u001B");
    await vi.waitFor(() => expect(onStop).toHaveBeenCalledOnce());
  });
});
