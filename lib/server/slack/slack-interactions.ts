import type { WebClient } from "@slack/web-api";
import { cameTooLate, type ReplyOutcome } from "../../protocol/commands";
import { outcomeLine } from "../../protocol/audit";
import { cardKindOf } from "../../protocol/card-kinds";
import { AppError } from "../../protocol/errors";
import { fieldErrorsOf } from "../../protocol/forms";
import type { AnswerValue, JsonValue, Question } from "../../protocol/question";
import { readChoiceValue, SLACK_ACTIONS, SLACK_VIEWS, type BlockActions, type SlackInteraction, type ViewSubmission } from "../../protocol/slack";
import { listWords } from "../../protocol/team-card";
import { mayAnswer, waitingFor } from "../../protocol/teams";
import { answererNamed, type Answerer } from "../access/answering-as";
import type { PeopleCache } from "../access/people-cache";
import { log } from "../log";
import type { NameOf } from "../../protocol/display-names";
import type { QuestionService } from "../questions/question-service";
import { answerModal, blockErrors, editModal, readAnswerModal, readEditModal, readRejectModal, rejectModal, ANSWER_BLOCK } from "./slack-views";

export interface SlackInteractionDeps {
  client: WebClient;
  /** Who a Slack user answers as (slack-people.ts). */
  store: { personOf(slackUserId: string): Promise<string | null> };
  questions: Pick<QuestionService, "getQuestion" | "reply" | "reject">;
  people: Pick<PeopleCache, "get">;
  /** Whether a person may see a question (a member of its chat): throws not_found otherwise. */
  seeQuestion(person: string, id: string): Promise<void>;
  nameOf(): Promise<NameOf>;
}

/** What Slack is answered: nothing (200), or a modal's errors (kept open, each beside its input). */
export type SlackResponse = null | { response_action: "errors"; errors: Record<string, string> };

/** The modal each button opens. */
const MODALS = { [SLACK_ACTIONS.reject]: rejectModal, [SLACK_ACTIONS.edit]: editModal, [SLACK_ACTIONS.answer]: answerModal };

/** A refusal the person reads: ephemeral after a click, beside the first input in a modal. */
class Refused extends Error {}

/**
 * Slack's clicks and modals, verified as Slack's: each answers as the Parley person its Slack user
 * is linked to, through the same claim as every other surface, so the first answer anywhere wins.
 * A person Parley does not know, one who may not answer, a question settled already: they read
 * why (an ephemeral message only they see), and nothing changes.
 */
export function createSlackInteractions({ client, store, questions, people, seeQuestion, nameOf }: SlackInteractionDeps) {
  /** The person behind a Slack user, as they may answer now. */
  async function answererOf(slackUserId: string): Promise<Answerer> {
    const person = await store.personOf(slackUserId);
    const who = person === null ? null : await answererNamed(people, person);
    if (who === null) {
      throw new Refused(
        "Your Slack user is not linked to a person in Parley, so nothing was answered. Ask Parley's administrator to run `npx parley user link <your name> --slack <your Slack member ID>`.",
      );
    }
    return who;
  }

  /** The question a person is about to answer: one they may see, still waiting, and theirs to answer. */
  async function openQuestion(id: string, who: Answerer): Promise<Question> {
    try {
      await seeQuestion(who.person, id);
    } catch (err) {
      if (AppError.from(err).code.startsWith("not_found")) throw new Refused("This question is in a chat you are not a member of in Parley, so nothing was answered.");
      throw err;
    }
    const question = await questions.getQuestion({ id });
    if (question.status !== "pending") throw new Refused(await settledWords(question));
    if (!mayAnswer(question, who.person)) {
      const names = await nameOf();
      throw new Refused(`Only ${listWords((waitingFor(question) ?? []).map(names), "or")} may answer this question now, so nothing was answered.`);
    }
    return question;
  }

  async function settledWords(q: Question): Promise<string> {
    return `Already settled: ${outcomeLine(q, { nameOf: await nameOf() })}.`;
  }

  /** Applies an answer; a reply that lost the race is told how the question ended. */
  async function answer(q: Question, who: Answerer, send: () => Promise<{ outcome: ReplyOutcome; question: Question }>): Promise<void> {
    const receipt = await send().catch((err: unknown) => {
      const error = AppError.from(err);
      // A form's fields are shown beside their inputs (the modal reads the details).
      if (error.status < 500 && !fieldErrorsOf(error.details)) throw new Refused(`${error.message} Nothing was answered.`);
      throw err;
    });
    if (cameTooLate(receipt.outcome)) throw new Refused(await settledWords(receipt.question));
    log.info({ questionId: q.id, person: who.person, outcome: receipt.outcome }, "[slack] answered");
  }

  const reply = (q: Question, who: Answerer, value: AnswerValue | JsonValue) => answer(q, who, () => questions.reply({ id: q.id, value, by: "slack", ...who }));

  /** A click: the value it names, a modal to open, or nothing to do (ticking a box before Send). */
  async function clicked(payload: BlockActions): Promise<void> {
    const action = payload.actions[0]!;
    const id = action.action_id;
    if (id === SLACK_ACTIONS.multiPick) return;
    const who = await answererOf(payload.user.id);
    const choice = readChoiceValue(action.selected_option?.value ?? action.value ?? "");
    const questionId = id.startsWith(SLACK_ACTIONS.choose) ? choice?.questionId : action.value;
    if (!questionId) return;
    const q = await openQuestion(questionId, who);
    if (id.startsWith(SLACK_ACTIONS.choose)) {
      const option = choice ? q.options[choice.index] : undefined;
      if (option === undefined) throw new Refused("That option is not one of this question's any more. Nothing was answered.");
      return reply(q, who, cardKindOf(q) === "multi_choice" ? [option] : option);
    }
    switch (id) {
      case SLACK_ACTIONS.multiSend: {
        const picked = Object.values(payload.state?.values ?? {}).flatMap((block) => block[SLACK_ACTIONS.multiPick]?.selected_options ?? []);
        const options = picked.map((o) => readChoiceValue(o.value)).flatMap((c) => (c && c.questionId === q.id && q.options[c.index] !== undefined ? [q.options[c.index]!] : []));
        if (options.length === 0) throw new Refused("Tick at least one option, then Send.");
        return reply(q, who, options);
      }
      case SLACK_ACTIONS.yes:
      case SLACK_ACTIONS.no:
        return reply(q, who, id === SLACK_ACTIONS.yes);
      case SLACK_ACTIONS.allowOnce:
        return reply(q, who, "once");
      case SLACK_ACTIONS.allowAlways:
        return reply(q, who, "always");
      case SLACK_ACTIONS.reject:
      case SLACK_ACTIONS.edit:
      case SLACK_ACTIONS.answer:
        if (!payload.trigger_id) return;
        await client.views.open({ trigger_id: payload.trigger_id, view: MODALS[id](q) });
        return;
      default:
        return;
    }
  }

  /** A modal's submission: the answer or the rejection it holds, or its errors beside the inputs. */
  async function submitted(payload: ViewSubmission): Promise<SlackResponse> {
    const { view } = payload;
    const firstBlock = Object.keys(view.state.values)[0] ?? ANSWER_BLOCK;
    try {
      const who = await answererOf(payload.user.id);
      const q = await openQuestion(view.private_metadata, who);
      if (view.callback_id === SLACK_VIEWS.reject) {
        await answer(q, who, () => questions.reject({ id: q.id, message: readRejectModal(view.state.values), by: "slack", ...who }));
        return null;
      }
      if (view.callback_id === SLACK_VIEWS.edit) {
        const edited = readEditModal(view.state.values);
        if (!edited.ok) return { response_action: "errors", errors: edited.errors };
        await answer(q, who, () => questions.reply({ id: q.id, value: "once", input: edited.input, by: "slack", ...who }));
        return null;
      }
      const read = readAnswerModal(q, view.state.values);
      if (!read.ok) return { response_action: "errors", errors: read.errors };
      try {
        await reply(q, who, read.value);
      } catch (err) {
        // The server's own check of a form, field by field, shown as the modal's.
        const fields = err instanceof AppError ? fieldErrorsOf(err.details) : null;
        if (fields) return { response_action: "errors", errors: blockErrors(fields) };
        throw err;
      }
      return null;
    } catch (err) {
      if (err instanceof Refused) return { response_action: "errors", errors: { [firstBlock]: err.message.slice(0, 2_000) } };
      throw err;
    }
  }

  return {
    /** Handles one verified interaction; the answer goes back to Slack as the request's response. */
    async handle(payload: SlackInteraction): Promise<SlackResponse> {
      if (payload.type === "view_submission") return submitted(payload);
      try {
        await clicked(payload);
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        const channel = payload.channel?.id;
        if (channel)
          await client.chat
            .postEphemeral({ channel, user: payload.user.id, text: err.message })
            .catch((e: unknown) => log.warn({ err: e }, "[slack] could not tell a person why nothing was answered"));
      }
      return null;
    },
  };
}

export type SlackInteractions = ReturnType<typeof createSlackInteractions>;
