"use client";

import { useNameOf } from "@/lib/client/use-names";
import { useRef, useState, type ReactNode } from "react";
import { HeaderSheet } from "./HeaderSheet";
import type { PermissionDecision, PermissionRule } from "@/lib/protocol/permissions";
import { DECISION_HINT, DECISION_LABEL, grantWords, matchWords, PRECEDENCE_NOTE, ruleWords, sourceLabel, UNKNOWN_TOOL_HINT } from "@/lib/client/permission-rules";
import { usePermissionRules } from "@/lib/client/use-permission-rules";
import { clockTime, fullTime, sameDay, shortDate } from "@/lib/client/timestamps";

/** When a grant ends: its time today, else its date and time. */
const endWords = (iso: string) => (sameDay(iso, Date.now()) ? clockTime(iso) : `${shortDate(iso)}, ${clockTime(iso)}`);

/**
 * The session's settings: a gear in the chat header opens its permission rules, a popover on a
 * wide screen and a sheet from the bottom on a phone. Each rule in words; project defaults and
 * Parley's built-in rules are read-only, the session's rules can be removed.
 */
export function PermissionsButton({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  return (
    <div className="relative shrink-0">
      <button
        ref={button}
        type="button"
        data-testid="permissions-button"
        aria-label="Permissions"
        title="Permissions"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className={`flex h-8 w-8 items-center justify-center rounded-md text-stone-500 pointer-coarse:-mr-2 pointer-coarse:size-11 hover:bg-stone-100 hover:text-stone-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${open ? "bg-stone-100 text-stone-900" : ""}`}
      >
        <GearIcon />
      </button>
      {open && <PermissionsPanel sessionId={sessionId} onClose={close} />}
    </div>
  );
}

function PermissionsPanel({ sessionId, onClose }: { sessionId: string; onClose: () => void }) {
  const { rules, error, loading, removing, remove, reload } = usePermissionRules(sessionId, true);
  return (
    <HeaderSheet testId="permissions" title="Permissions" note={PRECEDENCE_NOTE} width="md:w-[28rem]" onClose={onClose}>
      {error && (
        <div role="alert" data-testid="permissions-error" className="mx-4 mt-3 flex items-center gap-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200">
          <span className="min-w-0 flex-1">{error.message}</span>
          <button type="button" onClick={() => void reload()} className="shrink-0 rounded px-1.5 text-sm font-medium text-red-900 pointer-coarse:min-h-11 underline-offset-2 hover:underline">
            Retry
          </button>
        </div>
      )}
      {rules === null ? (
        !error && (
          <p className="px-4 py-6 text-center text-sm text-stone-400" aria-busy={loading}>
            Loading rules…
          </p>
        )
      ) : (
        <>
          <Section title="This chat" testId="permissions-session">
            {rules.session.length === 0 ? (
              <Empty>No rules yet. Choosing “Allow always” on an approval adds one here.</Empty>
            ) : (
              rules.session.map((rule) => <RuleRow key={rule.id} rule={rule} removing={removing.has(rule.id)} onRemove={() => void remove(rule.id)} />)
            )}
          </Section>
          <Section title="Project defaults" note="parley.permissions.json" testId="permissions-project">
            {rules.project.length === 0 ? <Empty>None. Dangerous tools ask; the rest run.</Empty> : rules.project.map((rule) => <RuleRow key={rule.id} rule={rule} compact />)}
          </Section>
          {rules.builtin.length > 0 && (
            <Section title="Built in" note="not removable" testId="permissions-builtin">
              {rules.builtin.map((rule) => (
                <RuleRow key={rule.id} rule={rule} compact />
              ))}
            </Section>
          )}
        </>
      )}
    </HeaderSheet>
  );
}

function Section({ title, note, testId, children }: { title: string; note?: string; testId: string; children: ReactNode }) {
  return (
    <section data-testid={testId} className="pt-3 last:pb-3">
      <h3 className="flex items-baseline gap-2 px-4 pb-1 text-xs font-medium uppercase tracking-wide text-stone-500">
        {title}
        {note && <span className="font-mono text-[11px] normal-case tracking-normal text-stone-500">{note}</span>}
      </h3>
      <ul className="divide-y divide-stone-100">{children}</ul>
    </section>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <li className="px-4 py-2 text-sm text-stone-500">{children}</li>;
}

const BADGE: Record<PermissionDecision, string> = {
  allow: "bg-emerald-100 text-emerald-800",
  deny: "bg-rose-100 text-rose-800",
  ask: "bg-amber-100 text-amber-900",
};

/** Words with their `code` parts set as code: "shell: `npm test` exactly". */
function Worded({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, i) =>
        i % 2 === 1 ? (
          <code key={i} className="rounded bg-stone-100 px-1 font-mono text-[12.5px] text-stone-800 [box-decoration-break:clone] [overflow-wrap:anywhere]">
            {part}
          </code>
        ) : (
          <span key={i}>{part}</span>
        ),
      )}
    </>
  );
}

/** A rule: its decision, what it matches in words, its tool and pattern as written, where it came from; `compact` (read-only rules) tighter. */
function RuleRow({ rule, removing = false, onRemove, compact = false }: { rule: PermissionRule; removing?: boolean; onRemove?: () => void; compact?: boolean }) {
  const added = rule.createdAt ? `Added ${fullTime(rule.createdAt)}` : undefined;
  const nameOf = useNameOf();
  return (
    <li
      data-testid="permission-rule"
      data-rule-id={rule.id}
      data-source={rule.source}
      data-decision={rule.decision}
      className={`flex items-start gap-3 px-4 ${compact ? "py-1.5" : "py-2.5"} ${removing ? "opacity-50" : ""}`}
    >
      <span
        data-testid="permission-rule-decision"
        title={DECISION_HINT[rule.decision]}
        className={`mt-0.5 w-12 shrink-0 rounded py-0.5 text-center text-[11px] font-semibold uppercase tracking-wide ${BADGE[rule.decision]}`}
      >
        {DECISION_LABEL[rule.decision]}
      </span>
      <div className="min-w-0 flex-1">
        <p data-testid="permission-rule-words" className="text-[13px] leading-relaxed text-stone-800 [overflow-wrap:anywhere]">
          <span data-testid="permission-rule-tool" className="font-mono font-semibold">
            {rule.tool}
          </span>
          : <Worded text={matchWords(rule)} />
        </p>
        <div className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-stone-500">
          <code data-testid="permission-rule-pattern" title="The pattern as written" className="min-w-0 font-mono text-[11.5px] text-stone-500 [overflow-wrap:anywhere]">
            {rule.pattern}
          </code>
          <span aria-hidden>·</span>
          <span data-testid="permission-rule-source" title={added} className="shrink-0">
            {sourceLabel(rule)}
          </span>
          {rule.sessionId !== null && (
            <>
              <span aria-hidden>·</span>
              <span data-testid="permission-rule-grant" title={rule.expiresAt ? `Ends ${fullTime(rule.expiresAt)}` : undefined} className="shrink-0">
                {grantWords(rule, { time: endWords, nameOf })}
              </span>
            </>
          )}
          {rule.unknownTool && (
            <span
              data-testid="permission-rule-unknown-tool"
              title={UNKNOWN_TOOL_HINT}
              className="inline-flex shrink-0 items-center gap-1 rounded bg-orange-50 px-1.5 text-[11px] font-medium leading-5 text-orange-800 ring-1 ring-orange-200"
            >
              <span aria-hidden className="font-bold">
                !
              </span>{" "}
              unknown tool
            </span>
          )}
        </div>
      </div>
      {onRemove && (
        <button
          type="button"
          data-testid="permission-rule-remove"
          onClick={onRemove}
          disabled={removing}
          aria-label={`Remove rule: ${DECISION_LABEL[rule.decision].toLowerCase()} ${ruleWords(rule).replaceAll("`", "")}`}
          className="shrink-0 rounded-md border border-stone-300 bg-white px-2.5 py-1 text-xs pointer-coarse:min-h-11 pointer-coarse:px-3 font-medium text-stone-700 shadow-sm hover:border-rose-300 hover:bg-rose-50 hover:text-rose-800 disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          {removing ? "Removing…" : "Remove"}
        </button>
      )}
    </li>
  );
}

function GearIcon() {
  return (
    <svg aria-hidden viewBox="0 0 20 20" className="h-[18px] w-[18px] fill-none stroke-current" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
      <path d="M8.6 2.5h2.8l.4 2.1a5.6 5.6 0 0 1 1.5.9l2-.7 1.4 2.4-1.6 1.4a5.7 5.7 0 0 1 0 1.8l1.6 1.4-1.4 2.4-2-.7a5.6 5.6 0 0 1-1.5.9l-.4 2.1H8.6l-.4-2.1a5.6 5.6 0 0 1-1.5-.9l-2 .7-1.4-2.4 1.6-1.4a5.7 5.7 0 0 1 0-1.8L3.3 7.2l1.4-2.4 2 .7a5.6 5.6 0 0 1 1.5-.9z" />
      <circle cx="10" cy="10" r="2.4" />
    </svg>
  );
}
