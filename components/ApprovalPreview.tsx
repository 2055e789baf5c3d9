"use client";

import { useMemo } from "react";
import type { CommandBound, ToolPreview } from "@/lib/protocol/permissions";
import { BOUND_TEXT, chainText, isSandboxed } from "@/lib/protocol/command-bound";
import { numberDigits, parseUnifiedDiff, type DiffLine } from "@/lib/client/unified-diff";
import { sizeLabel, visibleString } from "@/lib/client/visible-text";
import { VisibleText } from "@/components/VisibleText";

/** A readable preview of a tool's input: a command, a coloured diff, a list or text — all of it, its hidden characters marked. */
export function ApprovalPreview({ preview }: { preview: ToolPreview }) {
  const box = "max-h-[32vh] overflow-auto rounded-lg border text-xs leading-relaxed outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 sm:max-h-72";
  switch (preview.type) {
    case "command":
      return <CommandPreview command={preview.command} cwd={preview.cwd} bound={preview.bound} chain={preview.chain} />;
    case "diff":
      return <DiffPreview path={preview.path} diff={preview.diff} boxClass={box} />;
    case "list":
      return (
        <ul data-testid="approval-preview" data-preview-type="list" tabIndex={0} aria-label="Items" className={`${box} divide-y divide-stone-100 border-stone-200 bg-white`}>
          {preview.items.length === 0 && <li className="px-3 py-1.5 italic text-stone-400">(nothing)</li>}
          {preview.items.map((item, i) => (
            <li key={i} className="flex gap-2 px-3 py-1.5 font-mono text-stone-700 [overflow-wrap:anywhere]">
              <span aria-hidden className="select-none text-stone-300">
                •
              </span>
              <VisibleText text={item} />
            </li>
          ))}
        </ul>
      );
    case "text":
      return (
        <pre
          data-testid="approval-preview"
          data-preview-type="text"
          tabIndex={0}
          aria-label="Text"
          className={`${box} whitespace-pre-wrap border-stone-200 bg-stone-50 px-3 py-2 font-sans text-sm text-stone-700 [overflow-wrap:anywhere]`}
        >
          <VisibleText text={preview.text} />
        </pre>
      );
  }
}

/**
 * The whole command as it will run: every line (numbered when there are several), scrollable, its
 * size above it, so nothing below the first line or beyond the box goes unseen.
 */
function CommandPreview({ command, cwd, bound, chain }: { command: string; cwd?: string; bound?: CommandBound; chain?: string[] }) {
  const lines = command.split("\n");
  const numbered = lines.length > 1;
  const size = sizeLabel(command);
  return (
    <div data-testid="approval-preview" data-preview-type="command" className="overflow-hidden rounded-lg border border-stone-800 bg-stone-900">
      <div className="flex items-center gap-3 border-b border-stone-700/80 px-3 py-1 font-mono text-[11px] text-stone-400">
        <span className="min-w-0 flex-1 truncate" title={cwd ? visibleString(cwd) : undefined}>
          {cwd ? (
            <>
              in <VisibleText text={cwd} tone="dark" />
            </>
          ) : (
            "command"
          )}
        </span>
        <span data-testid="approval-command-size" className={`shrink-0 tabular-nums ${numbered ? "font-semibold text-amber-300" : ""}`}>
          {size}
        </span>
      </div>
      <div
        data-testid="approval-command-box"
        tabIndex={0}
        role="group"
        aria-label={`Command, ${size}`}
        className="max-h-[32vh] overflow-auto py-2 font-mono text-[13px] leading-relaxed text-stone-100 outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-400 sm:max-h-72"
      >
        <div data-testid="approval-command">
          {lines.map((line, i) => (
            <div key={i} data-testid="approval-command-line" className="flex">
              {numbered && (
                <span aria-hidden className="w-9 shrink-0 select-none pr-2 text-right tabular-nums text-stone-500">
                  {i + 1}
                </span>
              )}
              <span className={`min-w-0 flex-1 whitespace-pre-wrap pr-3 [overflow-wrap:anywhere] ${numbered ? "" : "pl-3"}`}>
                {i === 0 && <span aria-hidden data-prompt="$ " className="select-none text-emerald-400 before:content-[attr(data-prompt)]" />}
                {line === "" ? <span className="select-none text-stone-600">↵</span> : <VisibleText text={line} tone="dark" />}
              </span>
            </div>
          ))}
        </div>
      </div>
      {bound && <BoundLine bound={bound} />}
      {chain && chain.length > 0 && (
        <p data-testid="approval-chain" className="border-t border-stone-700/80 px-3 py-1.5 text-xs text-amber-200 [overflow-wrap:anywhere]">
          {chainText(chain)}
        </p>
      )}
    </div>
  );
}

const BOUND_STYLE: Record<CommandBound, string> = {
  sandboxed: "text-emerald-300",
  network: "text-amber-300",
  unsandboxed: "bg-rose-950/60 font-semibold text-rose-200",
  "opted-out": "bg-rose-950/60 font-semibold text-rose-200",
};

/** What the command can reach, under it: the sandbox's bound, or that there is none. */
function BoundLine({ bound }: { bound: CommandBound }) {
  return (
    <div data-testid="approval-bound" data-bound={bound} className={`flex items-start gap-2 border-t border-stone-700/80 px-3 py-1.5 text-xs ${BOUND_STYLE[bound]}`}>
      <svg aria-hidden viewBox="0 0 16 16" className="mt-px h-3.5 w-3.5 shrink-0 fill-none stroke-current" strokeWidth="1.6">
        {isSandboxed(bound) ? (
          <path d="M8 1.5 3 3.5v4c0 3 2.2 5.4 5 7 2.8-1.6 5-4 5-7v-4z M5.8 8l1.6 1.6L10.5 6.5" strokeLinejoin="round" strokeLinecap="round" />
        ) : (
          <path d="M8 2 1.5 13.5h13zM8 6.5v3.5M8 11.8v.2" strokeLinejoin="round" strokeLinecap="round" />
        )}
      </svg>
      <span>{BOUND_TEXT[bound]}</span>
    </div>
  );
}

const LINE_STYLE: Record<DiffLine["kind"], string> = {
  add: "bg-emerald-50 text-emerald-900",
  del: "bg-rose-50 text-rose-900",
  context: "text-stone-600",
  hunk: "bg-sky-50/80 text-sky-700",
  note: "italic text-stone-400",
};
/** Line numbers a person reads: 4.5:1 or more on their fill. */
const GUTTER_STYLE: Record<DiffLine["kind"], string> = {
  add: "bg-emerald-100/70 text-emerald-700",
  del: "bg-rose-100/70 text-rose-700",
  context: "text-stone-500",
  hunk: "bg-sky-50/80",
  note: "",
};
const MARK: Record<DiffLine["kind"], string> = { add: "+", del: "−", context: " ", hunk: "", note: "" };

function DiffPreview({ path, diff, boxClass }: { path: string; diff: string; boxClass: string }) {
  const parsed = useMemo(() => parseUnifiedDiff(diff), [diff]);
  // Two number columns as a unified diff viewer shows them: the old file's, then the new file's.
  const digits = numberDigits(parsed);
  const numberWidth = { width: `calc(${digits}ch + 0.75rem)` };
  const shownPath = path || parsed.newPath || parsed.oldPath || "";
  const isNew = parsed.oldPath === null && parsed.removed === 0 && parsed.lines.some((l) => l.kind === "hunk" && /^@@ -0,0 /.test(l.text));
  return (
    <div data-testid="approval-preview" data-preview-type="diff" className="overflow-hidden rounded-lg border border-stone-200 bg-white">
      <div className="flex items-center gap-2 border-b border-stone-200 bg-stone-50 px-3 py-1.5 text-xs">
        <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5 shrink-0 fill-none stroke-stone-400" strokeWidth="1.4">
          <path d="M4 1.5h5.5L12.5 4.5v10H4z" strokeLinejoin="round" />
          <path d="M9.5 1.5v3h3" strokeLinejoin="round" />
        </svg>
        <span data-testid="approval-diff-path" className="min-w-0 flex-1 font-mono font-medium text-stone-700 [overflow-wrap:anywhere]">
          <VisibleText text={shownPath} />
        </span>
        {isNew && <span className="rounded bg-emerald-100 px-1.5 text-[10px] font-semibold uppercase tracking-wide text-emerald-800">new file</span>}
        <span data-testid="approval-diff-stats" className="shrink-0 font-mono tabular-nums">
          <span className="text-emerald-700">+{parsed.added}</span> <span className="text-rose-700">−{parsed.removed}</span>
        </span>
      </div>
      {parsed.lines.length === 0 ? (
        <p className="px-3 py-2 text-xs italic text-stone-400">No changes.</p>
      ) : (
        <div tabIndex={0} role="table" aria-label={`Changes to ${visibleString(shownPath)}`} className={`${boxClass} rounded-none border-0 font-mono`}>
          {parsed.lines.map((line, i) => (
            <div key={i} role="row" data-line={line.kind} className={`flex ${LINE_STYLE[line.kind]}`}>
              {line.kind === "hunk" || line.kind === "note" ? (
                <span role="cell" className="px-3 py-0.5 [overflow-wrap:anywhere]">
                  <VisibleText text={line.text} />
                </span>
              ) : (
                <>
                  {digits > 0 &&
                    (["old", "new"] as const).map((side) => (
                      <span
                        key={side}
                        role="cell"
                        aria-hidden
                        data-testid={`diff-${side}-no`}
                        style={numberWidth}
                        className={`shrink-0 select-none px-1.5 text-right tabular-nums ${GUTTER_STYLE[line.kind]}`}
                      >
                        {side === "old" ? line.oldNo : line.newNo}
                      </span>
                    ))}
                  <span role="cell" aria-label={line.kind === "add" ? "added" : line.kind === "del" ? "removed" : undefined} className="w-4 shrink-0 select-none text-center opacity-70">
                    {MARK[line.kind]}
                  </span>
                  <span role="cell" className="min-w-0 flex-1 whitespace-pre-wrap pr-3 [overflow-wrap:anywhere]">
                    {line.text ? <VisibleText text={line.text} /> : "\u00a0"}
                  </span>
                </>
              )}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
