import { AskTimeout, ToolDenied, ToolFailed, UserDeclined, defineAgentFunction, type Runtime } from "../runtime";

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
  tool: true,
  description: "Deploys the demo app: a choice between fixed options, then progress steps.",
  async run(rt) {
    const env = await declinedOr(rt, () => rt.ask("Which environment should I deploy to?", { options: ["production", "staging", "preview"] }), "Deployment called off.");
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
  command: "coffee",
  tool: true,
  description: 'Orders a drink: a choice with an "Other" free-text answer.',
  async run(rt) {
    const drink = await declinedOr(rt, () => rt.ask("What would you like to drink?", { options: ["Espresso", "Flat white", "Green tea"], allowCustom: true }), "No drink then.");
    if (drink === null) return { ordered: null };
    rt.say(`One ${drink} coming up. ☕`);
    return { ordered: drink };
  },
});

export const pickToppings = defineAgentFunction({
  name: "pick-toppings",
  command: "pizza",
  tool: true,
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
  command: "rename",
  tool: true,
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
  command: "archive",
  tool: true,
  description: "Archives old emails: a confirm with a preview of what will happen.",
  async run(rt) {
    const emails = ["Weekly digest — 12 Nov", "Your invoice #4411", "Team offsite photos", "Re: lunch on Friday?", "Password reset (expired)"];
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
  command: "lunch",
  tool: true,
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
  tool: true,
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
  command: "shirt",
  tool: true,
  description: "Asks two questions at once, shown one after another.",
  async run(rt) {
    const [color, size] = await Promise.all([rt.ask("Which color?", { options: ["Red", "Green", "Blue"] }), rt.ask("Which size?", { options: ["S", "M", "L"] })]);
    rt.say(`A ${size} shirt in ${color}.`);
    return { color, size };
  },
});

export const setBudget = defineAgentFunction({
  name: "set-budget",
  command: "budget",
  tool: true,
  description: "Sets a budget: a reply schema (a JSON answer), shown as a form because it is a flat object.",
  async run(rt) {
    const budget = await declinedOr(
      rt,
      () =>
        rt.askJson<{ amount: number; currency: string }>("What is the monthly budget?", {
          detail: "A whole amount a month, in one currency.",
          schema: {
            type: "object",
            properties: { amount: { type: "integer", title: "Amount", minimum: 1, maximum: 1_000_000 }, currency: { title: "Currency", enum: ["EUR", "USD", "GBP"] } },
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

/** The trip form: every kind of field a form has (see lib/protocol/forms.ts). */
export const TRIP_FORM = {
  type: "object",
  properties: {
    destination: { type: "string", title: "Destination", description: "A city or a region", minLength: 2, maxLength: 80 },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 14, default: 3 },
    currency: { type: "string", title: "Currency", enum: ["EUR", "USD", "GBP"], enumNames: ["Euro (EUR)", "US dollar (USD)", "Pound sterling (GBP)"], default: "EUR" },
    email: { type: "string", title: "Email for the booking", format: "email" },
    insurance: { type: "boolean", title: "Add travel insurance", default: false },
  },
  required: ["destination", "nights", "currency", "email"],
  additionalProperties: false,
};

export const bookTrip = defineAgentFunction({
  name: "book-trip",
  command: "trip",
  tool: true,
  description: "Books a trip: a form with text, a number, a choice, an email and a checkbox.",
  async run(rt) {
    const result = await rt.form<{ destination: string; nights: number; currency: string; email: string; insurance?: boolean }>("Book a trip", TRIP_FORM, {
      detail: "Where would you like to go? I'll send the booking to your email.",
    });
    if (result.action === "decline") {
      rt.say(result.feedback ? `No trip then. You said: "${result.feedback}".` : "No trip then.");
      return { booked: null };
    }
    if (result.action === "cancel") {
      rt.say("Nobody answered the trip form in time: nothing was booked.");
      return { booked: null };
    }
    const trip = result.content;
    const nights = `${trip.nights} night${trip.nights === 1 ? "" : "s"}`;
    rt.say(`Booked ${nights} in ${trip.destination}, paid in ${trip.currency}${trip.insurance ? ", with travel insurance" : ""}. The confirmation goes to ${trip.email}. ✈️`);
    return { booked: trip };
  },
});

export const planEvening = defineAgentFunction({
  name: "plan-evening",
  command: "evening",
  tool: true,
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
  command: "report",
  tool: true,
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

/*
 * Tools that need approval. Each asks through rt.tool and, once allowed, does it for real in the
 * workspace (PARLEY_WORKSPACE; the server seeds a new one with a small sample project). Chat
 * messages are said after the tool call, never inside it: a tool's step is skipped on replay, and
 * what it said would go missing from the journal.
 */

/** What to say when a tool may not run: what happened, and the person's own words if they wrote any. */
function deniedLine(err: ToolDenied, what: string): string {
  switch (err.reason) {
    case "rejected":
      return err.feedback ? `${what} You said: "${err.feedback}".` : `You said no. ${what}`;
    case "denied":
      return `${what} ${err.message}`;
    case "timed_out":
      return `${err.message} ${what}`;
  }
}

/** The passed and failed counts of `node --test`'s summary (TAP `# pass 3` or the spec reporter's `ℹ pass 3`). */
export function testCounts(output: string): { passed: number; failed: number } | null {
  const count = (word: string) => Number(new RegExp(`^[#ℹ] ${word} (\\d+)$`, "m").exec(output)?.[1] ?? NaN);
  const passed = count("pass");
  const failed = count("fail");
  return Number.isNaN(passed) || Number.isNaN(failed) ? null : { passed, failed };
}

export const runTests = defineAgentFunction({
  name: "run-tests",
  command: "tests",
  tool: true,
  description: "Runs the workspace's tests: asks to run `npm test` in a shell, its output live while it runs, then reports.",
  async run(rt) {
    try {
      let command = "npm test";
      // The person may edit the command before allowing it: say what really ran.
      const result = await rt.tool("shell", { command }, undefined, { onEdited: (input) => (command = (input as { command: string }).command) });
      const counts = testCounts(result.output);
      const outcome = result.timedOut
        ? `The tests did not finish in time (killed after ${Math.round(result.durationMs / 1000)} s).`
        : result.exitCode === 0
          ? `The tests passed${counts ? `: ${counts.passed} of ${counts.passed + counts.failed}` : ""}. ✅`
          : `The tests failed (exit code ${result.exitCode ?? result.signal})${counts ? `: ${counts.failed} of ${counts.passed + counts.failed} failed` : ""}. ❌`;
      rt.say(`\`\`\`\n$ ${command}\n${result.output.trimEnd().slice(-4_000)}\n\`\`\`\n\n${outcome}`);
      return { ran: true, exitCode: result.exitCode, passed: counts?.passed ?? null, failed: counts?.failed ?? null };
    } catch (err) {
      if (err instanceof ToolFailed) {
        rt.say(`I could not run the tests: ${err.message}`);
        return { ran: false, reason: "failed", feedback: null };
      }
      if (!(err instanceof ToolDenied)) throw err;
      rt.say(deniedLine(err, "I did not run the tests."));
      return { ran: false, reason: err.reason, feedback: err.feedback };
    }
  },
});

/** The release the changelog demo adds (once: it leaves a changelog that has it as it is). */
const RELEASE = ["## 0.2.0", "- Approvals: tools ask before they run (allow once, allow always, reject)", "- Permission rules per session", ""].join("\n");

/** The changelog with the release section before the first existing one (after the title), or a new changelog. */
export function withRelease(current: string | null): string {
  if (current === null || !current.trim()) return `# Changelog\n\n${RELEASE}`;
  const at = current.search(/^## /m);
  if (at < 0) return `${current.trimEnd()}\n\n${RELEASE}`;
  return `${current.slice(0, at)}${RELEASE}\n${current.slice(at)}`;
}

export const writeChangelog = defineAgentFunction({
  name: "write-changelog",
  command: "changelog",
  tool: true,
  description: "Adds a 0.2.0 section to the workspace's docs/changelog.md: asks to write the file, with the diff from what it holds now.",
  async run(rt) {
    const path = "docs/changelog.md";
    try {
      const current = await rt.tool("read_file", { path }).then(
        (r) => r.content,
        (err: unknown) => {
          if (err instanceof ToolFailed && /does not exist/.test(err.message)) return null;
          throw err;
        },
      );
      if (current?.includes(RELEASE)) {
        rt.say(`${path} has the 0.2.0 section already: nothing to change.`);
        return { written: false, reason: "up_to_date", feedback: null };
      }
      const written = await rt.tool("write_file", { path, content: withRelease(current) });
      rt.say(`Wrote ${written.path}: a 0.2.0 section at the top (${written.lines} lines now). 📝`);
      return { written: true, path: written.path };
    } catch (err) {
      if (err instanceof ToolFailed) {
        rt.say(`I could not update ${path}: ${err.message}`);
        return { written: false, reason: "failed", feedback: null };
      }
      if (!(err instanceof ToolDenied)) throw err;
      rt.say(deniedLine(err, `I left ${path} as it was.`));
      return { written: false, reason: err.reason, feedback: err.feedback };
    }
  },
});

const DOCS_FILES = [
  { path: "docs/getting-started.md", content: "# Getting started\n\nRun `npx parley` and open the link it prints.\n" },
  { path: "docs/approvals.md", content: "# Approvals\n\nTools ask before they run: allow once, allow always, or reject with feedback.\n" },
];

export const updateDocs = defineAgentFunction({
  name: "update-docs",
  command: "approvals",
  tool: true,
  description: 'Writes two files in the workspace\'s docs/ at once: two approvals, and "Allow always" (docs/**) on one settles both.',
  async run(rt) {
    rt.say(`I'd like to write two files in docs/. Answer one card with "Allow always" (docs/**) and the other is settled with it.`);
    // Both approvals are asked at once; each outcome is kept, and reported after both ended.
    const outcomes = await Promise.all(
      DOCS_FILES.map(async (file) => {
        try {
          await rt.tool("write_file", file);
          return { path: file.path, written: true as const };
        } catch (err) {
          if (!(err instanceof ToolDenied || err instanceof ToolFailed)) throw err;
          return { path: file.path, written: false as const, error: err };
        }
      }),
    );
    const written = outcomes.filter((o) => o.written).map((o) => o.path);
    for (const o of outcomes) {
      if (!o.written) rt.say(o.error instanceof ToolDenied ? deniedLine(o.error, `I did not write ${o.path}.`) : `I could not write ${o.path}: ${o.error.message}`);
    }
    rt.say(written.length ? `Wrote ${written.join(" and ")}. 📚` : "No file written.");
    return {
      written,
      denied: outcomes.flatMap((o) =>
        o.written ? [] : [{ path: o.path, reason: o.error instanceof ToolDenied ? o.error.reason : "failed", feedback: o.error instanceof ToolDenied ? o.error.feedback : null }],
      ),
    };
  },
});

export const demoFunctions = [
  deploy,
  orderCoffee,
  pickToppings,
  renameProject,
  archiveEmails,
  quickPoll,
  countdown,
  twoQuestions,
  setBudget,
  bookTrip,
  planEvening,
  writeReport,
  runTests,
  writeChangelog,
  updateDocs,
];
