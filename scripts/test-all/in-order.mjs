// Output of parts that run at once, shown as if they had run one after another: the first part's
// as it comes, each later part's held back until every part opened before it has ended, then let through.

/**
 * Outputs onto `sink` (`{ write(stream, chunk) }`, stream "out" or "err"), in the order they are
 * opened: `open()` gives one with `write(stream, chunk)` and `end()`. Each reaches the sink whole and in order.
 */
export function inOrder(sink) {
  const outputs = [];
  let showing = 0;
  const advance = () => {
    while (showing < outputs.length && outputs[showing].ended) {
      showing++;
      if (showing < outputs.length) for (const [stream, chunk] of outputs[showing].held.splice(0)) sink.write(stream, chunk);
    }
  };
  return {
    open() {
      const output = { held: [], ended: false };
      const i = outputs.push(output) - 1;
      return {
        write(stream, chunk) {
          if (i === showing) sink.write(stream, chunk);
          else output.held.push([stream, chunk]);
        },
        end() {
          output.ended = true;
          advance();
        },
      };
    },
  };
}
