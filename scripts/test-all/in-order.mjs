// Output of parts that run at once, each part's kept whole: the earliest-opened part still running
// is shown as it comes, a line at a time; every other part's is held and shown in one piece as soon
// as it ends (so a type error is read when the check ends, not after the browser tests).

/**
 * Outputs onto `sink` (`{ write(stream, chunk) }`, stream "out" or "err"): `open()` gives one with
 * `write(stream, chunk)` and `end()`. Each reaches the sink whole and in order, never split by another.
 */
export function inOrder(sink) {
  const running = [];
  let live = null;
  const lineOf = { out: "", err: "" };

  /** The live output's complete lines go through; a partial line waits for its end. */
  const pass = (stream, chunk) => {
    const text = lineOf[stream] + String(chunk);
    const cut = text.lastIndexOf("\n") + 1;
    lineOf[stream] = text.slice(cut);
    if (cut) sink.write(stream, text.slice(0, cut));
  };
  const flushLine = () => {
    for (const stream of ["out", "err"]) if (lineOf[stream]) (sink.write(stream, lineOf[stream]), (lineOf[stream] = ""));
  };
  const goLive = () => {
    live = running[0] ?? null;
    if (live) for (const [stream, chunk] of live.held.splice(0)) pass(stream, chunk);
  };

  return {
    open() {
      const output = { held: [] };
      running.push(output);
      if (!live) goLive();
      return {
        write(stream, chunk) {
          if (output === live) pass(stream, chunk);
          else output.held.push([stream, chunk]);
        },
        end() {
          running.splice(running.indexOf(output), 1);
          if (output === live) {
            flushLine();
            goLive();
          } else {
            const held = output.held.splice(0);
            for (const [stream, chunk] of held) sink.write(stream, chunk);
            const last = held.at(-1);
            if (last && !String(last[1]).endsWith("\n")) sink.write(last[0], "\n");
          }
        },
      };
    },
  };
}
