/**
 * Other spellings of a route's path, as a request target: slashes doubled or trailing, dot
 * segments (plain and encoded), parameters, the absolute and asterisk forms. Each must get the
 * route's own answer or a typed JSON error, never a redirect or a crash page.
 */
export const PATH_SHAPES: Array<{ what: string; shape: (path: string, origin: string) => string }> = [
  { what: "trailing slash", shape: (p) => `${p}/` },
  { what: "two trailing slashes", shape: (p) => `${p}//` },
  { what: "double slash inside", shape: (p) => p.replace("/api/", "/api//") },
  { what: "leading double slash", shape: (p) => `/${p}` },
  { what: "dot segment", shape: (p) => p.replace("/api/", "/api/./") },
  { what: "dot-dot segment", shape: (p) => p.replace("/api/", "/api/x/../") },
  { what: "encoded dot segment at the end", shape: (p) => `${p}/%2e` },
  { what: "encoded dot-dot segment", shape: (p) => p.replace("/api/", "/api/x/%2e%2e/") },
  { what: "matrix parameter", shape: (p) => `${p};x=1` },
  { what: "empty query", shape: (p) => `${p}?` },
  { what: "malformed query", shape: (p) => `${p}?%ff=%E0%A4%A&a` },
  { what: "fragment", shape: (p) => `${p}#x` },
  { what: "encoded letter", shape: (p) => p.replace("/api/", "/api/%73").replace("/api/%73s", "/api/%73") },
  { what: "absolute form", shape: (p, origin) => `${origin}${p}` },
  { what: "asterisk form", shape: () => "*" },
];
