import { expect, test, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";
import type { QuestionAskBody } from "../lib/protocol/asks";
import type { Question } from "../lib/protocol/question";
import type { Run, Session } from "../lib/protocol/entities";

/** One browser tab showing a Parley session. */
export class ChatPage {
  constructor(readonly page: Page) {}

  static async open(context: BrowserContext, sessionId: string): Promise<ChatPage> {
    const tab = new ChatPage(await context.newPage());
    await tab.goto(sessionId);
    return tab;
  }

  async goto(sessionId: string) {
    await this.page.goto(`/s/${sessionId}`);
    await expect(this.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  }

  card = () => this.page.getByTestId("question-card");
  composer = () => this.page.getByTestId("composer");
  prompt = () => this.page.getByTestId("question-prompt");
  option = (text: string) => this.page.locator(`[data-testid="question-option"][data-option="${text}"]`);
  messages = (role?: "user" | "agent" | "system") => (role ? this.page.locator(`[data-testid="message"][data-role="${role}"]`) : this.page.getByTestId("message"));

  async send(text: string) {
    await this.page.getByTestId("composer-input").fill(text);
    await this.page.getByTestId("composer-send").click();
    await expect(this.messages("user").filter({ hasText: text }).first()).toBeVisible();
  }

  async expectCard(prompt: string) {
    await expect(this.card()).toBeVisible();
    await expect(this.prompt()).toHaveText(prompt);
    await expect(this.composer()).toHaveCount(0);
    // Past the card's first moments (`focus`: keys were typed as it came, the next key only focuses it).
    await expect(this.card()).toHaveAttribute("data-keys", /^(ready|focus)$/);
  }

  /** Waits until the card takes keys: a card ignores the keys of its first moments (components/use-card-keys.ts). */
  async keysReady() {
    await expect(this.card()).toHaveAttribute("data-keys", "ready");
  }

  async expectNoCard() {
    await expect(this.card()).toHaveCount(0);
    await expect(this.composer()).toBeVisible();
  }
}

/** REST calls a script would make against the running server. */
export class Api {
  constructor(private readonly request: APIRequestContext) {}

  async createSession(): Promise<Session> {
    const res = await this.request.post("/api/sessions", { data: {} });
    expect(res.status()).toBe(201);
    return res.json();
  }

  /** A script's ask (POST /api/asks); `key` names its idempotency key, fresh in each repetition and retry of the test. */
  async ask(body: Omit<QuestionAskBody, "kind">, key: string): Promise<Question> {
    const { repeatEachIndex, retry } = test.info();
    const res = await this.request.post("/api/asks", { data: body, headers: { "idempotency-key": `${key}-${repeatEachIndex}-${retry}` } });
    expect(res.status()).toBe(201);
    return (await res.json()) as Question;
  }

  async pending(sessionId: string): Promise<Question[]> {
    const res = await this.request.get(`/api/questions?session_id=${sessionId}`);
    expect(res.ok()).toBe(true);
    return res.json();
  }

  async waitForPending(sessionId: string, count = 1): Promise<Question[]> {
    let found: Question[] = [];
    await expect.poll(async () => (found = await this.pending(sessionId)).length).toBe(count);
    return found;
  }

  async startRun(sessionId: string, fn: string, input?: unknown): Promise<Run> {
    const res = await this.request.post(`/api/sessions/${sessionId}/runs`, { data: { function: fn, input } });
    expect(res.status()).toBe(201);
    return res.json();
  }

  async run(id: string): Promise<Run> {
    return (await this.request.get(`/api/runs/${id}`)).json();
  }

  reply(questionId: string, value: unknown) {
    return this.request.post(`/api/questions/${questionId}/reply`, { data: { value } });
  }
}
