"use client";

import { useEffect, useState } from "react";
import type { RunDetail } from "@/lib/protocol/entities";
import type { Question } from "@/lib/protocol/question";
import { requestJson } from "@/lib/client/api";
import { formatEditedInput, formatToolInput, toolCallResult, type ToolCallResult } from "@/lib/client/tool-call-row";
import { VisibleText } from "./VisibleText";

const FINISHED = new Set(["succeeded", "failed", "cancelled"]);

/** The expanded part of a tool call's row: its input, and its result read from the run's journal when opened. */
export function ToolCallDetails({ question }: { question: Question }) {
  const [result, setResult] = useState<ToolCallResult | { error: string } | null>(null);
  useEffect(() => {
    let live = true;
    void requestJson<RunDetail>(`/api/runs/${encodeURIComponent(question.runId)}`).then((res) => {
      if (!live) return;
      setResult(res.ok ? toolCallResult(question, res.data.journal, FINISHED.has(res.data.status)) : { error: res.error.message });
    });
    return () => {
      live = false;
    };
  }, [question]);
  const edited = formatEditedInput(question);
  return (
    <div data-testid="tool-call-details" className="mt-1.5 flex flex-col gap-1.5 text-xs">
      {edited === null ? (
        <Block label="Input" testId="tool-call-input" text={formatToolInput(question)} marked />
      ) : (
        <>
          <Block label="Input, as edited before allowing" testId="tool-call-input" text={edited} marked />
          <Block label="Asked with" testId="tool-call-asked" text={formatToolInput(question)} marked />
        </>
      )}
      {result === null ? (
        <p className="text-stone-400">Loading the result…</p>
      ) : "error" in result ? (
        <p className="text-rose-700">{result.error}</p>
      ) : (
        <Block label="Result" testId="tool-call-result" state={result.state} text={result.detail} />
      )}
    </div>
  );
}

/** `marked`: hidden characters shown as marks (the input a person approved); a result is shown as the tool returned it. */
function Block({ label, text, testId, state, marked }: { label: string; text: string; testId: string; state?: string; marked?: boolean }) {
  return (
    <div data-testid={testId} data-state={state}>
      <div className="mb-0.5 font-medium text-stone-500">{label}</div>
      <pre className="max-h-60 overflow-auto whitespace-pre-wrap rounded-md bg-white/90 px-2 py-1.5 font-mono text-[12px] leading-snug text-stone-700 [overflow-wrap:anywhere]">
        {marked ? <VisibleText text={text} /> : text}
      </pre>
    </div>
  );
}
