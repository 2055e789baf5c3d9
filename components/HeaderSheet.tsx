"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { keepTabInside } from "./focus-trap";

/**
 * A panel a header button opens: a sheet from the bottom on a phone (over a dim backdrop), a
 * popover under its button on a wide screen. It takes the focus, keeps Tab inside, and Escape or
 * a click outside closes it; its Escape comes before an open card's (which opens its reject box).
 */
export function HeaderSheet({
  testId,
  title,
  note,
  width,
  onClose,
  children,
}: {
  /** Names its parts: `<testId>-panel`, `-backdrop`, `-close`. */
  testId: string;
  title: string;
  note: ReactNode;
  /** Its width on a wide screen, a Tailwind class ("md:w-[24rem]"). */
  width: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const closing = useRef(onClose);
  useEffect(() => {
    closing.current = onClose;
  });

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented) return;
      e.preventDefault();
      e.stopPropagation();
      closing.current();
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, []);

  return (
    <>
      <div aria-hidden data-testid={`${testId}-backdrop`} onClick={onClose} className="fixed inset-0 z-30 bg-stone-900/30 md:bg-transparent" />
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        data-testid={`${testId}-panel`}
        onKeyDown={(e) => keepTabInside(e, panel.current)}
        className={[
          "fixed inset-x-0 bottom-0 z-40 flex max-h-[85dvh] flex-col rounded-t-2xl border-t border-stone-200 bg-white shadow-2xl outline-none",
          "md:absolute md:inset-x-auto md:bottom-auto md:right-0 md:top-full md:mt-3 md:max-h-[min(36rem,calc(100dvh-5rem))] md:rounded-xl md:border md:shadow-xl",
          width,
        ].join(" ")}
      >
        <div aria-hidden className="mx-auto mt-2 h-1 w-10 shrink-0 rounded-full bg-stone-300 md:hidden" />
        <header className="flex shrink-0 items-start gap-3 border-b border-stone-100 px-4 pb-3 pt-3 md:pt-4">
          <div className="min-w-0 flex-1">
            <h2 id={titleId} className="font-semibold text-stone-900">
              {title}
            </h2>
            <p className="mt-0.5 text-xs leading-relaxed text-stone-600">{note}</p>
          </div>
          <button
            type="button"
            data-testid={`${testId}-close`}
            aria-label="Close"
            onClick={onClose}
            className="-mr-1 flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-lg leading-none text-stone-500 pointer-coarse:-my-2 pointer-coarse:-mr-2 pointer-coarse:size-11 hover:bg-stone-100 hover:text-stone-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            ×
          </button>
        </header>
        <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain pb-[env(safe-area-inset-bottom)]">{children}</div>
      </div>
    </>
  );
}
