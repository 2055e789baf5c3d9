"use client";

import type { Question } from "@/lib/protocol/question";
import { teamStatus } from "@/lib/protocol/team-card";
import { useNameOf } from "@/lib/client/use-names";

/**
 * What a pending card says about its people: "1 of 2 approved — bob", "1 of 2 rejected — carol",
 * "You approved · waiting for 1 more", "Waiting for alice or bob". Nothing for a question that
 * names nobody. A live region: a vote from someone else is read out as it comes.
 */
export function TeamStatus({ question, me }: { question: Question; me: string | null }) {
  const { count, rejections, mine, waiting } = teamStatus(question, me, useNameOf());
  if (!count && !rejections && !mine && !waiting) return null;
  return (
    <div data-testid="team-status" aria-live="polite" className="space-y-1 text-sm">
      {(count || rejections) && (
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
          {count && (
            <span data-testid="approval-count" className="inline-flex items-center gap-1.5 rounded-md bg-emerald-50 px-2 py-0.5 font-medium text-emerald-900">
              <PeopleIcon />
              {count}
            </span>
          )}
          {rejections && (
            <span data-testid="approval-rejections" className="inline-flex items-center gap-1.5 rounded-md bg-rose-50 px-2 py-0.5 font-medium text-rose-900">
              {rejections}
            </span>
          )}
        </p>
      )}
      {mine && (
        <p data-testid="approval-my-vote" className="flex items-center gap-2 font-medium text-stone-800">
          <svg aria-hidden viewBox="0 0 16 16" className="h-4 w-4 shrink-0 fill-none stroke-emerald-700" strokeWidth="1.8">
            <path d="m3.5 8.5 3 3 6-6.5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          {mine}
        </p>
      )}
      {waiting && (
        <p data-testid="question-waiting" className="flex items-center gap-2 text-stone-700">
          <svg aria-hidden viewBox="0 0 16 16" className="h-4 w-4 shrink-0 fill-none stroke-stone-500" strokeWidth="1.5">
            <circle cx="8" cy="8" r="6" />
            <path d="M8 4.8V8l2.2 1.4" strokeLinecap="round" />
          </svg>
          {waiting}
        </p>
      )}
    </div>
  );
}

function PeopleIcon() {
  return (
    <svg aria-hidden viewBox="0 0 16 16" className="h-3.5 w-3.5 shrink-0 fill-none stroke-current" strokeWidth="1.5">
      <circle cx="6" cy="5.5" r="2.3" />
      <path d="M1.8 13.2c.5-2.3 2.2-3.6 4.2-3.6s3.7 1.3 4.2 3.6" strokeLinecap="round" />
      <path d="M10.6 3.4a2.2 2.2 0 0 1 0 4.3M12 9.8c1.2.5 2 1.7 2.3 3.4" strokeLinecap="round" />
    </svg>
  );
}
