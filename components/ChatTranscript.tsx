"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Run } from "@/lib/protocol/entities";
import type { TranscriptItem } from "@/lib/client/session-store";
import type { WaitingOn } from "@/lib/client/run-line";
import { dayLabel, fullTime, withDays } from "@/lib/client/timestamps";
import { EmptyChat } from "./EmptyChat";
import { QuestionRecord } from "./QuestionRecord";
import { RunLine } from "./RunLine";
import { MessageItem, StreamingItem } from "./TranscriptMessages";

interface ChatTranscriptProps {
  items: TranscriptItem[];
  /** Counts the messages sent from this tab: each brings the view to the end, wherever it was read. */
  sent?: number;
  loading: boolean;
  /** Runs a failed chat turn again (by its run): offered under it (a provider error) while no turn runs. */
  onRetry?: (runId: string) => unknown;
  /** Sends a suggestion of the empty chat. */
  onSuggest?: (text: string) => unknown;
  /** Runs with a question pending (their line says they wait for you). */
  /** The runs that wait for an answer, and whether for the viewer's or only other people's. */
  waitingRunIds: ReadonlyMap<string, Exclude<WaitingOn, false>>;
  /** Stops a run, for the runs the viewer may stop (`mayStop`). */
  onStopRun?: (run: Run) => unknown;
  mayStop?: (run: Run) => boolean;
  stopping: boolean;
  /** The person reading (their own answers read "by you"). */
  viewer?: string | null;
  /** Loads the page of history before what is shown (absent: it is all shown); called as the reader nears the top. */
  onLoadOlder?: () => unknown;
  loadingOlder?: boolean;
}

/** The failed chat turn to run again when the transcript ends with its failure. */
function retryRunOf(items: TranscriptItem[]): string | null {
  const last = items.findLast((i) => i.type !== "run");
  if (last?.type !== "message" || last.message.role !== "system" || !last.message.text.startsWith("Run chat failed:")) return null;
  return last.message.runId;
}

/** What the transcript ends with (its kind and id). */
function lastKey(items: TranscriptItem[]): string | null {
  const item = items.at(-1);
  if (!item) return null;
  return item.type === "message" ? `m:${item.message.id}` : item.type === "question" ? `q:${item.question.id}` : item.type === "run" ? `r:${item.run.id}` : `s:${item.stream.runId}:${item.stream.seq}`;
}

/** How close to the bottom still counts as reading the latest (px). */
const NEAR_BOTTOM = 80;
/** How far above the top of the view older history starts loading (px). */
const LOAD_AHEAD = "800px";

/** The item at the top of the view and where it stands in it: kept in place when items arrive above it. */
interface Anchor {
  el: Element;
  top: number;
}

/** The first item whose bottom is below the view's top (items are stacked, so a binary search). */
function anchorIn(scroller: HTMLElement, list: HTMLElement): Anchor | null {
  const items = list.children;
  const top = scroller.getBoundingClientRect().top;
  let [lo, hi] = [0, items.length - 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.getBoundingClientRect().bottom > top) hi = mid;
    else lo = mid + 1;
  }
  // The older history's placeholder and a day's separator move up as pages arrive under them: the item after is what is read.
  while (items[lo]?.matches('[data-testid="older-history"], [data-testid="day-separator"]')) lo++;
  const el = items[lo];
  return el ? { el, top: el.getBoundingClientRect().top - top } : null;
}

export function ChatTranscript({
  items,
  sent = 0,
  loading,
  onRetry,
  onSuggest,
  waitingRunIds,
  onStopRun,
  mayStop = () => true,
  stopping,
  viewer = null,
  onLoadOlder,
  loadingOlder = false,
}: ChatTranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const retryRun = onRetry ? retryRunOf(items) : null;
  const stuck = useRef(true);
  const [away, setAway] = useState(false);
  const [unseen, setUnseen] = useState(false);
  const count = useRef(items.length);
  const last = useRef(lastKey(items));

  const anchor = useRef<Anchor | null>(null);
  /** Where this view scrolled itself to keep the anchor: that scroll does not choose a new one. */
  const ownScroll = useRef<number | null>(null);
  const sentinel = useRef<HTMLLIElement>(null);
  const loadOlder = useRef(onLoadOlder);
  useEffect(() => {
    loadOlder.current = onLoadOlder;
  }, [onLoadOlder]);
  const hasOlder = onLoadOlder !== undefined;
  /** Puts the item read back where it stood (the browser's own scroll anchoring is off: it does not act at the very top). */
  const holdAnchor = useCallback(() => {
    const el = scroller.current;
    const held = anchor.current;
    if (!el || !held?.el.isConnected) return;
    const by = held.el.getBoundingClientRect().top - el.getBoundingClientRect().top - held.top;
    if (Math.abs(by) < 0.5) return;
    el.scrollTop += by;
    ownScroll.current = el.scrollTop;
    // At an end of the scroll range it cannot be kept: it is read where it now stands.
    if (Math.abs(held.el.getBoundingClientRect().top - el.getBoundingClientRect().top - held.top) >= 0.5 && list.current) anchor.current = anchorIn(el, list.current);
  }, []);

  // Follow new items while the reader is at the bottom; leave them alone (and say so) when they scrolled up,
  // keeping what they read in place when older history arrives above it.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stuck.current) el.scrollTop = el.scrollHeight;
    else {
      holdAnchor();
      // Only what arrives at the end is new: a page of older history is not.
      if (items.length > count.current && lastKey(items) !== last.current) setUnseen(true);
    }
    count.current = items.length;
    last.current = lastKey(items);
    if (el && list.current && anchor.current === null) anchor.current = anchorIn(el, list.current);
  }, [items, holdAnchor]);

  // Older history loads as the top of the transcript comes near; again after each page while it is still near.
  useEffect(() => {
    const el = scroller.current;
    const top = sentinel.current;
    if (!el || !top || !hasOlder || loadingOlder) return;
    const observer = new IntersectionObserver(([entry]) => entry?.isIntersecting && loadOlder.current?.(), { root: el, rootMargin: `${LOAD_AHEAD} 0px 0px 0px` });
    observer.observe(top);
    return () => observer.disconnect();
  }, [hasOlder, loadingOlder, items]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      const own = ownScroll.current !== null && Math.abs(el.scrollTop - ownScroll.current) < 1;
      ownScroll.current = null;
      if (!own && list.current) anchor.current = anchorIn(el, list.current);
      stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM;
      setAway(!stuck.current);
      if (stuck.current) setUnseen(false);
    };
    // The card below growing (or the window) shrinks this view, and content arriving (a streamed reply) grows it: stay at the bottom.
    // Away from it, items above the one read change size as they are first laid out: keep that one in place.
    const observer = new ResizeObserver(() => {
      if (stuck.current) el.scrollTop = el.scrollHeight;
      else holdAnchor();
    });
    observer.observe(el);
    if (list.current) observer.observe(list.current);
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener("scroll", onScroll);
    };
  }, [holdAnchor]);

  // The reader's own message: they follow it to the end (and what answers it).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || sent === 0) return;
    stuck.current = true;
    el.scrollTop = el.scrollHeight;
  }, [sent]);

  const jump = () => {
    const el = scroller.current;
    if (!el) return;
    stuck.current = true;
    el.scrollTo({ top: el.scrollHeight, behavior: "smooth" });
  };

  return (
    <div className="relative flex min-h-0 flex-1 flex-col">
      <div ref={scroller} data-testid="transcript" className="min-h-0 flex-1 overflow-y-auto [overflow-anchor:none]">
        {/* Only what is on screen is laid out and painted (content-visibility): a long history costs little until it is scrolled to. */}
        <ol
          ref={list}
          data-testid="message-list"
          aria-label="Messages"
          className="mx-auto flex max-w-3xl flex-col gap-3 px-4 py-6 [&>li]:[contain-intrinsic-size:auto_3.5rem] [&>li]:[content-visibility:auto] [&>li]:[overflow-clip-margin:12px]"
        >
          {hasOlder && (
            <li ref={sentinel} data-testid="older-history" className="self-center">
              <button
                type="button"
                onClick={() => onLoadOlder?.()}
                disabled={loadingOlder}
                className="rounded-full px-3 py-1 text-xs font-medium text-stone-500 pointer-coarse:min-h-11 hover:bg-stone-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:hover:bg-transparent"
              >
                {loadingOlder ? "Loading earlier messages…" : "Show earlier messages"}
              </button>
            </li>
          )}
          {withDays(items).map((item) => {
            switch (item.type) {
              case "day":
                return (
                  <li key={`day:${item.day}`} data-testid="day-separator" className="flex items-center gap-3 py-1 text-xs font-medium text-stone-500" title={fullTime(item.at)}>
                    <span aria-hidden className="h-px flex-1 bg-stone-200" />
                    {dayLabel(item.at)}
                    <span aria-hidden className="h-px flex-1 bg-stone-200" />
                  </li>
                );
              case "message":
                return <MessageItem key={item.message.id} message={item.message} />;
              case "stream":
                return <StreamingItem key={`stream:${item.stream.runId}:${item.stream.seq}`} stream={item.stream} />;
              case "run":
                return (
                  <RunLine
                    key={`run:${item.run.id}`}
                    run={item.run}
                    waiting={waitingRunIds.get(item.run.id) ?? false}
                    stopping={stopping}
                    onStop={onStopRun && item.run.parentRunId === null && mayStop(item.run) ? () => onStopRun(item.run) : undefined}
                  />
                );
              case "question":
                return <QuestionRecord key={item.question.id} question={item.question} viewer={viewer} />;
            }
          })}
          {retryRun !== null && (
            <li className="self-center">
              <button
                type="button"
                data-testid="retry-turn"
                onClick={() => onRetry?.(retryRun)}
                className="rounded-full border border-stone-300 bg-white px-3 py-1 text-xs pointer-coarse:min-h-11 pointer-coarse:px-4 font-medium text-stone-700 shadow-sm hover:bg-stone-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                Retry
              </button>
            </li>
          )}
        </ol>
        {items.length === 0 && (loading ? <p className="pt-16 text-center text-sm text-stone-400">Loading…</p> : <EmptyChat onSuggest={onSuggest} />)}
      </div>
      {away && (
        <button
          type="button"
          data-testid="jump-to-latest"
          onClick={jump}
          className="absolute bottom-3 left-1/2 flex h-9 -translate-x-1/2 pointer-coarse:h-11 items-center gap-1.5 rounded-full border border-stone-200 bg-white px-4 text-sm font-medium text-stone-700 shadow-md hover:bg-stone-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          <svg aria-hidden viewBox="0 0 16 16" className="h-4 w-4">
            <path d="M8 3v10m0 0-4-4m4 4 4-4" className="fill-none stroke-current" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          {unseen ? "New messages" : "Jump to latest"}
        </button>
      )}
    </div>
  );
}
