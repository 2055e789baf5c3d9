"use client";

import { useEffect, useRef, useState } from "react";
import type { Question } from "@/lib/protocol/question";
import { approvalTitle, ownerLabel } from "@/lib/client/approval";

/**
 * Announces each newly arrived question to screen readers. Always mounted: a live region
 * must exist before its text changes to be read out.
 */
export function LiveAnnouncer({ questions }: { questions: Question[] }) {
  const seen = useRef(new Set<string>());
  const [text, setText] = useState("");

  useEffect(() => {
    const fresh = questions.filter((q) => !seen.current.has(q.id));
    fresh.forEach((q) => seen.current.add(q.id));
    const newest = fresh.at(-1);
    if (newest?.approval) setText(`Approval needed: ${approvalTitle(newest.owner, newest.approval.tool)}. ${newest.prompt}`);
    else if (newest) setText(`New question from ${ownerLabel(newest.owner)}: ${newest.prompt}`);
  }, [questions]);

  return (
    <div aria-live="polite" aria-atomic="true" className="sr-only">
      {text}
    </div>
  );
}
