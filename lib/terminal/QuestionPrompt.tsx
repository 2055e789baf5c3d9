import { Box, Text, useInput } from "ink";
import { isFlatForm } from "../protocol/forms";
import { cardKindOf, type ByCardKind } from "../protocol/card-kinds";
import { cardMode, teamStatus } from "../protocol/team-card";
import type { Question } from "../protocol/question";
import { asOffered } from "../client/approval";
import { ApprovalPreview } from "./ApprovalPreview";
import { FormPrompt } from "./FormPrompt";
import { LineInput } from "./LineInput";
import { PromptFrame, usePromptMachine, type PromptProps } from "./PromptFrame";
import { initialPrompt, pressKey, promptHint, promptRows, type PromptKey } from "./prompt-keys";
import { useKeyGuard } from "./use-key-guard";

/**
 * A pending question in place of the input line: a form, rows to choose from, or a text field; or,
 * when it is not `me`'s to answer (now), the question read-only with whom it waits for.
 */
export function QuestionPrompt({ me, ...props }: PromptProps & { me: string | null }) {
  const mode = cardMode(props.question, me);
  if (mode !== "answer") return <WatchPrompt key={mode} {...props} me={me} />;
  return PROMPTS[cardKindOf(props.question)]({ ...props, me });
}

const choicePrompt = ({ me, ...props }: PromptProps & { me: string | null }) => <ChoicePrompt {...props} question={asOffered(props.question)} me={me} />;

/** The prompt each card kind is answered with (a new kind: the type check names this table). */
const PROMPTS: ByCardKind<(props: PromptProps & { me: string | null }) => React.ReactNode> = {
  form: ({ me, ...props }) => {
    const schema = props.question.replySchema;
    return isFlatForm(schema) ? <FormPrompt {...props} schema={schema} /> : choicePrompt({ me, ...props });
  },
  choice: choicePrompt,
  multi_choice: choicePrompt,
  text: choicePrompt,
  confirm: choicePrompt,
  approval: choicePrompt,
};

/** The lines about the question's people: the approvals counted, your vote, whom it waits for. */
function TeamLines({ question, me }: { question: Question; me: string | null }) {
  const { count, rejections, mine, waiting } = teamStatus(question, me);
  return (
    <>
      {count ? <Text color="green">{count}</Text> : null}
      {rejections ? <Text color="red">{rejections}</Text> : null}
      {mine ? <Text bold>✓ {mine}</Text> : null}
      {waiting ? <Text color="yellow">{waiting}</Text> : null}
    </>
  );
}

/** Read-only: no rows and no keys but Tab to the next question. The input line stays hidden: the session waits. */
function WatchPrompt(props: PromptProps & { me: string | null }) {
  const { question, onNext, me, position } = props;
  useInput((_input, key) => {
    if (key.tab) onNext();
  });
  return (
    <PromptFrame {...props} failure={null} hint={position.count > 1 ? "You cannot answer this one · Tab next" : "You cannot answer this one"}>
      {question.approval ? <ApprovalPreview approval={question.approval} prompt={question.prompt} /> : null}
      <TeamLines question={question} me={me} />
    </PromptFrame>
  );
}

function ChoicePrompt({ me, ...props }: PromptProps & { me: string | null }) {
  const { question, onNext } = props;
  const { state, press, sending, failure } = usePromptMachine(
    () => initialPrompt(question),
    (s, key: PromptKey) => pressKey(question, s, key),
    props,
  );
  const rows = promptRows(question);
  const { allows, note, hint: guardHint } = useKeyGuard();
  // A text field's Enter, judged as the browser judges one: not in the question's first moments.
  const submitText = () => allows("text-enter") && press({ type: "enter" });

  useInput((input, key) => {
    if (key.tab) return onNext();
    if (key.upArrow) return press({ type: "up" });
    if (key.downArrow) return press({ type: "down" });
    if (key.escape) return allows(state.mode === "choose" ? "card" : "text-char") && press({ type: "escape" });
    // The text field takes Enter and typing itself.
    if (state.mode !== "choose") return;
    if (key.ctrl || key.meta || !(key.return || input.length === 1)) return;
    if (!allows("card")) return;
    if (key.return) return press({ type: "enter" });
    if (input === " ") return press({ type: "space" });
    press({ type: "char", char: input });
  });

  return (
    <PromptFrame
      {...props}
      notice={note ?? props.notice}
      failure={state.error ?? failure}
      hint={sending ? "Sending…" : (guardHint(state.mode === "choose" ? "card" : "text-enter") ?? promptHint(question, state))}
    >
      {question.approval ? <ApprovalPreview approval={question.approval} prompt={question.prompt} /> : null}
      <TeamLines question={question} me={me} />
      {state.mode === "choose" || state.mode === "reason"
        ? rows.map((row, i) => {
            const here = i === state.cursor && state.mode === "choose";
            const ticked = row.act.type === "toggle" && state.ticked.includes(row.act.option);
            return (
              <Text key={row.label} color={here ? "cyan" : undefined}>
                {here ? "❯ " : "  "}
                {row.key !== null ? `${row.key}. ` : "   "}
                {question.multi && row.act.type === "toggle" ? (ticked ? "[x] " : "[ ] ") : ""}
                {row.label}
                {row.hint ? <Text dimColor> ({row.hint})</Text> : null}
              </Text>
            );
          })
        : null}
      {state.mode === "text" ? (
        <Box>
          <Text color="cyan">{"❯ "}</Text>
          <LineInput value={state.text} onChange={(value) => press({ type: "edit", value })} onSubmit={submitText} placeholder={rows.length > 0 ? "Your answer" : "Type your answer"} />
        </Box>
      ) : null}
      {state.mode === "reason" ? <ReasonLine approval={question.kind === "approval"} value={state.reason} onChange={(value) => press({ type: "edit", value })} onSubmit={submitText} /> : null}
    </PromptFrame>
  );
}

/** The optional reason for declining (or rejecting an approval). */
function ReasonLine({ approval, value, onChange, onSubmit }: { approval: boolean; value: string; onChange: (value: string) => void; onSubmit: () => void }) {
  return (
    <Box>
      <Text color="magenta">{approval ? "Why not? " : "Reason (optional): "}</Text>
      <LineInput value={value} onChange={onChange} onSubmit={onSubmit} />
    </Box>
  );
}
