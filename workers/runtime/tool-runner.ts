import type { ApprovalSpecInput } from "../../lib/protocol/permissions";
import { canonicalJson } from "../../lib/protocol/plain-json";
import { describeZodError } from "../../lib/protocol/errors";
import type { JsonValue } from "../../lib/protocol/question";
import { normaliseFolder } from "../../lib/permissions/working-folder";
import { clip, findTool, tools as catalogue, workspaceFolder, type Tool, type ToolContext } from "../tools";
import { approvalEdit } from "../tools/edited-call";
import { RunCancelled, ToolDenied, ToolFailed, ToolInputInvalid, UnknownTool } from "./errors";
import { digestOf, type Claim, type Journal } from "./journal";
import { audienceOf, timeoutOf, type Questions } from "./questions";
import type { RunContext } from "./run-context";
import { boundedInput, declinedError, inspectionError, runRealTool, timedOutError, toolFailureOf } from "./tool-call";
import type { Runtime, StepContext, ToolOptions } from "./types";

/**
 * `rt.tool`: a tool call asked for as an approval, then run as a journaled step (the helpers it
 * uses are in tool-call.ts).
 */
export interface ToolRunner {
  tool: Runtime["tool"];
}

export function createToolRunner(ctx: RunContext, journal: Journal, questions: Questions): ToolRunner {
  const { host, own, cancelledError } = ctx;
  const { claim, runStep } = journal;
  const lookUpTool = host.findTool ?? findTool;
  const workspace = host.workspace ?? workspaceFolder();
  const toolContext: ToolContext = {
    workspace,
    signal: ctx.signal,
    progress(text) {
      if (!ctx.isParked()) ctx.send({ type: "run.progress", runId: host.runId, text });
    },
  };

  /**
   * A tool call: two journal positions, claimed together before anything is awaited — the
   * approval, then the tool's step — so that concurrent calls keep their positions on replay
   * whichever approval is answered first. Then the real tool's checks on disk (not for an
   * approval the journal has: it was asked already), which build the preview. A declined call leaves its step
   * position unused; so does a call its checks refuse (and its approval's position).
   */
  async function tool<T>(name: string | Tool, input: unknown, impl: ((input: never, ctx: StepContext) => Promise<T> | T) | undefined, options: ToolOptions = {}): Promise<T> {
    if (typeof name !== "string" && !impl) throw new TypeError(`rt.tool(${name.name}, …) with a tool's definition needs its implementation.`);
    const t = typeof name === "string" ? lookUpTool(name) : name;
    if (!t) throw own(new UnknownTool(name as string, host.findTool ? [] : catalogue.map((c) => c.name)));
    const checked = t.inputSchema.safeParse(input);
    if (!checked.success) throw own(new ToolInputInvalid(t.name, describeZodError(checked.error)));
    const value = checked.data;
    const subject = t.subject(value);
    const timeoutMs = timeoutOf(options.timeoutMs);
    const fallback = options.fallback ?? "deny";
    const prompt = t.prompt?.(value) ?? `Use ${t.name} on ${clip(subject.replace(/\s+/g, " "), 200)}?`;
    const spec = { kind: "approval" as const, prompt, timeoutMs, owner: options.owner, ...audienceOf(options), ...(options.approvals && { approvals: options.approvals }) };
    const real = !impl;
    // A real tool whose approval stands on what it found (a file's content) journals that first, so
    // the tool can refuse to act on something changed since, even in a run resumed after a park.
    const stampDigest = digestOf("tool-stamp", t.name, value);
    const stampClaim = real && t.stamp ? claim("step", stampDigest, `the checks of the tool call ${t.name}`) : null;
    const question = questions.claim(spec, [t.name, value]);
    const shown = boundedInput(value);
    let facts: unknown;
    let approved: JsonValue | undefined = stampClaim?.record?.output;
    let step: Claim<"step">;
    try {
      step = claim("step", digestOf("tool", t.name, value), `the tool call ${t.name}`);
      // A caller that brings its own implementation works elsewhere: the workspace's checks do not apply.
      if (!question.record && t.inspect && real) {
        journal.enterWork();
        try {
          facts = await t.inspect(value, toolContext);
        } catch (err) {
          const refused = inspectionError(t.name, subject, err);
          throw refused instanceof ToolDenied || refused instanceof ToolFailed ? own(refused) : refused;
        } finally {
          journal.leaveWork();
        }
        ctx.checkLive();
        if (stampClaim) {
          const stamp = t.stamp!(facts) ?? null;
          // Recorded before a crash cut the run off before its approval: asked now, it must be on the same.
          if (stampClaim.record && canonicalJson(stampClaim.record.output) !== canonicalJson(stamp)) {
            throw own(new ToolFailed(t.name, subject, `\`${clip(subject, 200)}\` changed while the run was interrupted: nothing was done. Call the tool again.`));
          }
          if (!stampClaim.record) await runStep(stampClaim.seq, stampDigest, clip(`${t.name} ${subject.replace(/\s+/g, " ")}: as found before asking`, 200), undefined, () => stamp);
          approved = stamp;
        }
      }
    } catch (err) {
      // Not asked after all: the questions claimed after it go out without waiting for it.
      questions.release(question);
      throw err;
    }
    const settled = questions.ask(question, () => ({
      ...spec,
      approval: {
        tool: t.name,
        input: shown,
        preview: t.preview(value, facts),
        subject,
        subjectKind: t.subjectKind,
        cwd: t.workingFolder ? normaliseFolder(t.workingFolder(value)) : null,
        always: t.alwaysOptions(value),
        dangerous: t.dangerous,
        fallback,
        edit: approvalEdit(t, value, shown),
      } satisfies ApprovalSpecInput,
    }));
    const s = await settled;
    switch (s.outcome) {
      case "answered":
        break;
      case "declined":
        throw own(declinedError(t.name, subject, s));
      case "timed_out":
        if (fallback === "deny") throw own(timedOutError(t.name, subject, timeoutMs));
        break;
      case "cancelled":
      case "expired":
        throw own(new RunCancelled(s.feedback ?? `The approval "${prompt}" was ${s.outcome}.`));
    }
    ctx.checkLive();
    // "Edit and allow": the tool runs with the input the person edited (the server checked it against the same schema).
    const edited = s.outcome === "answered" && s.input ? t.inputSchema.safeParse(s.input) : null;
    if (edited && !edited.success) throw own(new ToolFailed(t.name, subject, `the edited input is not valid: ${describeZodError(edited.error)}`));
    const used = edited ? edited.data : value;
    const usedSubject = edited ? t.subject(used) : subject;
    if (edited) options.onEdited?.(used);
    const stepName = clip(`${t.name} ${usedSubject.replace(/\s+/g, " ")}`, 200);
    // What the checks found stands for the call they looked at: an edit to another subject is checked when it runs, not against them.
    const stamped = usedSubject === subject ? approved : undefined;
    const run = impl ? (stepContext: StepContext) => impl(used as never, stepContext) : () => runRealTool(t, used, toolContext, stamped) as Promise<T>;
    const output = await runStep(step.seq, digestOf("tool", t.name, value), stepName, step.record, run);
    if (!impl) {
      // A Stop while the tool ran: it was killed, the run ends.
      if (ctx.signal.aborted) throw cancelledError();
      const failure = toolFailureOf(output);
      if (failure !== null) throw own(new ToolFailed(t.name, usedSubject, failure));
    }
    return output;
  }

  return { tool };
}
