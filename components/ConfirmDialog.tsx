"use client";

import { keepTabInside } from "./focus-trap";
import { useEffect, useId, useRef, type ReactNode } from "react";

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The confirm button's label while the action runs. */
  busyLabel?: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}

/**
 * A confirmation for something that cannot be undone (role="alertdialog"): labelled by its title,
 * described by its text; focus moves to Cancel when it opens, stays inside while it is open (Tab
 * cycles), and goes back to where it was when it closes; Esc or a click outside cancels.
 */
export function ConfirmDialog({ title, children, confirmLabel, busyLabel, busy = false, error, onConfirm, onCancel, testId = "confirm-dialog" }: ConfirmDialogProps) {
  const id = useId();
  const panel = useRef<HTMLDivElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    cancel.current?.focus();
    return () => {
      // Back to where the person was; if that is gone (the chat it belonged to was deleted), the page keeps focus.
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      e.preventDefault();
      if (!busy) onCancel();
      return;
    }
    keepTabInside(e, panel.current);
  };

  return (
    <div className="fixed inset-0 z-50 flex items-end justify-center p-4 sm:items-center" onKeyDown={onKeyDown}>
      <div aria-hidden className="absolute inset-0 bg-stone-900/40" onClick={() => !busy && onCancel()} />
      <div
        ref={panel}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-text`}
        data-testid={testId}
        className="relative w-full max-w-sm rounded-2xl bg-white p-5 text-left shadow-xl ring-1 ring-stone-200"
      >
        <h2 id={`${id}-title`} className="break-words text-base font-semibold text-stone-900">
          {title}
        </h2>
        <div id={`${id}-text`} className="mt-2 text-sm text-stone-600">
          {children}
        </div>
        {error && (
          <p role="alert" className="mt-3 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700">
            {error}
          </p>
        )}
        <div className="mt-5 flex justify-end gap-2">
          <button
            ref={cancel}
            type="button"
            data-testid={`${testId}-cancel`}
            onClick={onCancel}
            disabled={busy}
            className="rounded-lg px-3 py-2 text-sm font-medium text-stone-700 ring-1 pointer-coarse:min-h-11 ring-stone-300 hover:bg-stone-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60"
          >
            Cancel
          </button>
          <button
            type="button"
            data-testid={`${testId}-confirm`}
            onClick={onConfirm}
            disabled={busy}
            className="rounded-lg bg-red-600 px-3 py-2 text-sm pointer-coarse:min-h-11 font-medium text-white shadow-sm hover:bg-red-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-60"
          >
            {busy ? (busyLabel ?? confirmLabel) : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
