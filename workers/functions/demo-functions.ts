import { AskTimeout, UserDeclined, defineAgentFunction, type Runtime } from "../runtime";

/** Deterministic demo functions: together they exercise every kind of question, offline. */

const QUICK_TIMEOUT_MS = 20_000;

async function declinedOr<T>(rt: Runtime, work: () => Promise<T>, onDecline: string): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UserDeclined) {
      rt.say(err.feedback ? `${onDecline} You said: "${err.feedback}".` : onDecline);
      return null;
    }
    throw err;
  }
}

export const deploy = defineAgentFunction({
  name: "deploy",
  description: "Deploys the demo app: a choice between fixed options, then progress steps.",
  async run(rt) {
    const env = await declinedOr(
      rt,
      () => rt.ask("Which environment should I deploy to?", { options: ["production", "staging", "preview"] }),
      "Deployment called off.",
    );
    if (env === null) return { deployed: false };
    const steps = ["Building", "Uploading", "Switching traffic"];
    for (const [i, step] of steps.entries()) {
      // Each stage is a journaled step: a resumed run does not do it again.
      await rt.step(step, async () => {
        rt.progress(`${step}… (${i + 1}/${steps.length})`);
        await rt.sleep(400);
        return { done: step };
      });
    }
    rt.progress(null);
    rt.say(`Deployed to ${env}. ✅`);
    return { deployed: true, environment: env };
  },
});

export const orderCoffee = defineAgentFunction({
  name: "order-coffee",
  description: "Orders a drink: a choice with an \"Other\" free-text answer.",
  async run(rt) {
    const drink = await declinedOr(
      rt,
      () => rt.ask("What would you like to drink?", { options: ["Espresso", "Flat white", "Green tea"], allowCustom: true }),
      "No drink then.",
    );
    if (drink === null) return { ordered: null };
    rt.say(`One ${drink} coming up. ☕`);
    return { ordered: drink };
  },
});

export const pickToppings = defineAgentFunction({
  name: "pick-toppings",
  description: "Builds a pizza: a multi-select of toppings.",
  async run(rt) {
    const toppings = await declinedOr(
      rt,
      () =>
        rt.ask("Which toppings do you want?", {
          options: ["Mozzarella", "Mushrooms", "Olives", "Basil", "Chili"],
          multi: true,
        }),
      "No pizza then.",
    );
    if (toppings === null) return { toppings: null };
    rt.say(`Pizza with ${toppings.join(", ")}. 🍕`);
    return { toppings };
  },
});

export const renameProject = defineAgentFunction({
  name: "rename-project",
  description: "Renames the demo project: a free-text question.",
  async run(rt) {
    const name = await rt.askUser("What should the project be called?");
    if (name === null) {
      rt.say("Keeping the old name.");
      return { renamed: false };
    }
    rt.say(`Renamed the project to "${name}".`);
    return { renamed: true, name };
  },
});

export const archiveEmails = defineAgentFunction({
  name: "archive-emails",
  description: "Archives old emails: a confirm with a preview of what will happen.",
  async run(rt) {
    const emails = [
      "Weekly digest — 12 Nov",
      "Your invoice #4411",
      "Team offsite photos",
      "Re: lunch on Friday?",
      "Password reset (expired)",
    ];
    const detail = `${emails.length} emails older than 30 days:\n${emails.map((e) => `• ${e}`).join("\n")}`;
    const ok = await rt.confirm(`Archive all ${emails.length} emails?`, { detail });
    if (!ok) {
      rt.say("Nothing archived.");
      return { archived: 0 };
    }
    rt.progress("Archiving…");
    await rt.sleep(300);
    rt.progress(null);
    rt.say(`Archived ${emails.length} emails. 📥`);
    return { archived: emails.length };
  },
});

export const quickPoll = defineAgentFunction({
  name: "quick-poll",
  description: "A 20-second poll that falls back to its default when nobody answers.",
  async run(rt) {
    const slot = await declinedOr(
      rt,
      () =>
        rt.ask("Lunch at which time? (20 s, then I pick 12:30)", {
          options: ["12:00", "12:30", "13:00"],
          timeoutMs: QUICK_TIMEOUT_MS,
          default: "12:30",
        }),
      "No lunch booked.",
    );
    if (slot === null) return { slot: null };
    rt.say(`Lunch booked at ${slot}.`);
    return { slot };
  },
});

export const countdown = defineAgentFunction({
  name: "countdown",
  description: "A 20-second question with no default: timing out is reported, not guessed.",
  async run(rt) {
    try {
      const code = await rt.ask("Type the launch code within 20 seconds.", { timeoutMs: QUICK_TIMEOUT_MS });
      rt.say(`Launch code "${code}" accepted. 🚀`);
      return { launched: true };
    } catch (err) {
      if (err instanceof AskTimeout) {
        rt.say("No code in time: launch aborted.");
        return { launched: false, reason: "timed_out" };
      }
      if (err instanceof UserDeclined) {
        rt.say("Launch aborted.");
        return { launched: false, reason: "declined" };
      }
      throw err;
    }
  },
});

export const twoQuestions = defineAgentFunction({
  name: "two-questions",
  description: "Asks two questions at once, shown one after another.",
  async run(rt) {
    const [color, size] = await Promise.all([
      rt.ask("Which color?", { options: ["Red", "Green", "Blue"] }),
      rt.ask("Which size?", { options: ["S", "M", "L"] }),
    ]);
    rt.say(`A ${size} shirt in ${color}.`);
    return { color, size };
  },
});

export const setBudget = defineAgentFunction({
  name: "set-budget",
  description: "Sets a budget: a JSON answer checked against a reply schema.",
  async run(rt) {
    const budget = await declinedOr(
      rt,
      () =>
        rt.askJson<{ amount: number; currency: string }>("What is the monthly budget?", {
          detail: 'Answer as JSON, e.g. {"amount": 250, "currency": "EUR"}',
          schema: {
            type: "object",
            properties: { amount: { type: "integer", minimum: 1, maximum: 1_000_000 }, currency: { enum: ["EUR", "USD", "GBP"] } },
            required: ["amount", "currency"],
            additionalProperties: false,
          },
        }),
      "No budget set.",
    );
    if (budget === null) return { budget: null };
    rt.say(`Budget set to ${budget.amount} ${budget.currency} a month.`);
    return { budget };
  },
});

export const planEvening = defineAgentFunction({
  name: "plan-evening",
  description: "Plans an evening with two child runs at once (a drink and a pizza), each asking its own question.",
  async run(rt) {
    rt.say("Planning your evening: two helpers will each ask you something.");
    const [drink, pizza] = await Promise.all([rt.call("order-coffee"), rt.call("pick-toppings")]);
    const summary = { drink, pizza };
    rt.say("Evening planned. 🌙");
    return summary;
  },
});

/** Works for a while without asking anything: the turn to try Stop on, or a second tab. */
export const writeReport = defineAgentFunction({
  name: "write-report",
  description: "Works for about ten seconds with progress and no questions: try Stop.",
  async run(rt) {
    const sections = ["Gathering sources", "Reading", "Outlining", "Drafting", "Checking facts", "Polishing"];
    for (const [i, section] of sections.entries()) {
      await rt.step(section, async () => {
        rt.progress(`${section}… (${i + 1}/${sections.length})`);
        await rt.sleep(1_500);
        return { done: section };
      });
    }
    rt.progress(null);
    rt.say(`The report is ready: ${sections.length} sections.`);
    return { sections: sections.length };
  },
});

export const demoFunctions = [deploy, orderCoffee, pickToppings, renameProject, archiveEmails, quickPoll, countdown, twoQuestions, setBudget, planEvening, writeReport];
