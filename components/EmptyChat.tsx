"use client";

import { SUGGESTIONS } from "@/lib/client/suggestions";

/** A new chat: a greeting and a few things to try, each sent with one click. */
export function EmptyChat({ onSuggest }: { onSuggest?: (text: string) => unknown }) {
  return (
    <div data-testid="empty-chat" className="mx-auto flex max-w-xl flex-col items-center px-6 pt-12 text-center sm:pt-20">
      <svg aria-hidden viewBox="0 0 48 48" className="mb-4 h-12 w-12">
        <rect x="4" y="8" width="32" height="24" rx="8" className="fill-indigo-100" />
        <path d="M12 32v7l8-7" className="fill-indigo-100" />
        <rect x="16" y="18" width="28" height="20" rx="7" className="fill-indigo-600" />
        <circle cx="24" cy="28" r="2" className="fill-white" />
        <circle cx="30" cy="28" r="2" className="fill-white" />
        <circle cx="36" cy="28" r="2" className="fill-amber-300" />
      </svg>
      <h2 className="text-lg font-semibold text-stone-800">What shall we do?</h2>
      <p className="mt-1 text-sm text-stone-500">Parley asks you when it needs a decision. Try one of these, or type your own.</p>
      {onSuggest && (
        <ul aria-label="Suggestions" className="mt-6 grid w-full grid-cols-1 gap-2 sm:grid-cols-2">
          {SUGGESTIONS.map((s) => (
            <li key={s.text}>
              <button
                type="button"
                data-testid="suggestion"
                onClick={() => onSuggest(s.text)}
                className="flex min-h-11 w-full flex-col items-start rounded-xl border border-stone-200 bg-white px-4 py-2.5 text-left shadow-sm transition hover:border-indigo-300 hover:bg-indigo-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                <span className="text-sm font-medium text-stone-800">{s.label}</span>
                <span className="text-xs text-stone-500">{s.hint}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
