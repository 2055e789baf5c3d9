export interface FileTime {
  file: string;
  ms: number;
}
export interface Failure {
  file: string;
  test: string;
}
export interface FromReport {
  files: FileTime[];
  failures: Failure[];
}
export function fromVitest(report: unknown, root: string): FromReport;
export function fromPlaywright(report: unknown, testDir: string): FromReport;
export function slowest<F extends FileTime>(files: F[], count: number): F[];
