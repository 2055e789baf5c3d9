export type Part = "next" | "server";
export const PARTS: Record<Part, { sources: string[]; stamp: string; ignore: string[] }>;
export function sourceHash(root: string, part: Part): string;
export function fileHash(file: string): string | null;
export function readStamp(root: string, part: Part): Record<string, string> | null;
export function writeStamp(root: string, part: Part, stamp: Record<string, string | null>): void;
