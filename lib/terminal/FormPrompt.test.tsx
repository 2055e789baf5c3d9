import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { promptClock } from "../../tests/helpers/prompt-clock";
import { aQuestion, tripForm } from "../../tests/helpers/questions";
import { QuestionPrompt } from "./QuestionPrompt";

const schema = tripForm;

const clock = promptClock();

describe("FormPrompt (rendered by ink)", () => {
  it("fills the fields with keys and sends the content", async () => {
    const onReply = vi.fn(async () => ({ ok: true }));
    const { stdin, lastFrame } = render(
      <QuestionPrompt
        question={aQuestion({ options: [], prompt: "Book a trip", replySchema: schema })}
        me="local"
        position={{ index: 0, count: 1 }}
        onReply={onReply}
        onReject={vi.fn()}
        onNext={() => {}}
        notice={null}
      />,
    );
    expect(lastFrame()).toMatch(/❯ Destination\*:/);
    clock.now += 5_000;
    stdin.write("Lisbon");
    await vi.waitFor(() => expect(lastFrame()).toContain("Lisbon"));
    stdin.write("\r");
    await vi.waitFor(() => expect(lastFrame()).toMatch(/❯ Nights\*:/));
    stdin.write("40");
    await vi.waitFor(() => expect(lastFrame()).toMatch(/Nights\*: 40/));
    stdin.write("\u001B[A");
    await vi.waitFor(() => expect(lastFrame()).toContain("✗ a whole number from 1 to 14"));
    stdin.write("\u001B[B");
    await vi.waitFor(() => expect(lastFrame()).toMatch(/❯ Nights\*:/));
    stdin.write("\u007F");
    await vi.waitFor(() => expect(lastFrame()).not.toContain("✗"));
    expect(lastFrame()).toMatch(/Nights\*: 4/);
    stdin.write("\r");
    await vi.waitFor(() => expect(lastFrame()).toContain("‹ choose ›"));
    stdin.write("\u001B[C");
    await vi.waitFor(() => expect(lastFrame()).toContain("‹ Euro ›"));
    stdin.write("\r");
    await vi.waitFor(() => expect(lastFrame()).toMatch(/❯ Travel insurance/));
    stdin.write(" ");
    await vi.waitFor(() => expect(lastFrame()).toContain("[x] Yes"));
    stdin.write("\r");
    await vi.waitFor(() => expect(onReply).toHaveBeenCalledWith(expect.anything(), { destination: "Lisbon", nights: 4, currency: "EUR", insurance: true }));
  });
});
