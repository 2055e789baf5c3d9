// Output of parts that run at once, shown as if they had run one after another: the first part's
// as it comes, each later part's held back until every part before it has ended, then let through.

/**
 * `count` outputs onto `sink` (`{ write(stream, chunk) }`, stream "out" or "err"): each has
 * `write(stream, chunk)` and `end()`. Output i reaches the sink whole and in order.
 */
export function inOrder(count, sink) {
  const held = Array.from({ length: count }, () => []);
  const ended = Array(count).fill(false);
  let showing = 0;
  const advance = () => {
    while (showing < count && ended[showing]) {
      showing++;
      if (showing < count) for (const [stream, chunk] of held[showing].splice(0)) sink.write(stream, chunk);
    }
  };
  return Array.from({ length: count }, (_, i) => ({
    write(stream, chunk) {
      if (i === showing) sink.write(stream, chunk);
      else held[i].push([stream, chunk]);
    },
    end() {
      ended[i] = true;
      advance();
    },
  }));
}
