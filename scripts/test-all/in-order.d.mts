export interface Sink {
  write(stream: "out" | "err", chunk: string | Buffer): void;
}
export interface Output extends Sink {
  end(): void;
}
export function inOrder(sink: Sink): { open(): Output };
