import { Box, Text, useInput } from "ink";
import { fieldErrorsOf, formFields, type FormSchema } from "../protocol/forms";
import { PromptFrame, usePromptMachine, type PromptProps } from "./PromptFrame";
import { useKeyGuard } from "./use-key-guard";
import { fieldHint, formHint, formKeysOf, initialForm, pressFormKey, type FormKey } from "./form-keys";

/** A flat form (rt.form, or a reply schema that is one) as labelled fields, one of them taking the keys. */
export function FormPrompt(props: PromptProps & { schema: FormSchema }) {
  const { question, schema, onNext } = props;
  const fields = formFields(schema);
  const machine = usePromptMachine(
    () => initialForm(schema, question.hasDefault ? question.default : undefined),
    (s, key: FormKey) => pressFormKey(schema, s, key),
    props,
    // The server's own check of a field (the same rules) shows beside that field.
    (error) => {
      const errors = fieldErrorsOf(error.details);
      if (errors) machine.update((current) => ({ ...current, errors }));
    },
  );
  const { state, press, sending, failure } = machine;

  const { allows, note, hint: guardHint } = useKeyGuard();
  useInput((input, key) => {
    if (key.tab) return onNext();
    // The fields take what is typed; Enter, which may send, is judged as the browser's card judges it.
    for (const k of formKeysOf(input, key)) if (k.type !== "enter" || allows("text-enter")) press(k);
  });

  return (
    <PromptFrame {...props} notice={note ?? props.notice} failure={failure} hint={sending ? "Sending…" : (guardHint("text-enter") ?? formHint(state, state.field === fields.length - 1))}>
      {fields.map((field, i) => {
        const here = i === state.field && state.mode === "fields";
        const value = state.draft[field.name];
        const error = state.errors[field.name];
        return (
          <Box key={field.name} flexDirection="column">
            <Box>
              <Text color={here ? "cyan" : undefined}>
                {here ? "❯ " : "  "}
                {field.label}
                {field.required ? <Text color="red">*</Text> : null}:{" "}
              </Text>
              {field.kind === "boolean" ? (
                <Text>{value === true ? "[x] Yes" : "[ ] No"}</Text>
              ) : field.kind === "choice" ? (
                <Text>
                  {here ? "‹ " : ""}
                  {field.choices.find((c) => c.value === value)?.title ?? <Text dimColor>choose</Text>}
                  {here ? " ›" : ""}
                </Text>
              ) : (
                <Text>
                  {String(value ?? "")}
                  {here ? <Text inverse> </Text> : null}
                </Text>
              )}
            </Box>
            {error ? <Text color="red"> ✗ {error}</Text> : here && fieldHint(field) ? <Text dimColor> {[field.description, fieldHint(field)].filter(Boolean).join(" · ")}</Text> : null}
          </Box>
        );
      })}
      {state.mode === "reason" ? (
        <Text>
          <Text color="magenta">Reason (optional): </Text>
          {state.reason}
          <Text inverse> </Text>
        </Text>
      ) : null}
    </PromptFrame>
  );
}
