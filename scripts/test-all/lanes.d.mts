export interface LanePart {
  name: string;
  needs?: string[];
}
export interface LaneOutcome {
  name: string;
  result: string;
  note?: string;
}
export function runLanes<P extends LanePart, O extends LaneOutcome>(parts: P[], lanes: string[][], run: (part: P) => Promise<O>, notRun?: (part: P) => string | null): Promise<(O | LaneOutcome)[]>;
