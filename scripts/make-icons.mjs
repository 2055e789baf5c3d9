// Draws the PNG icons the manifest and iOS ask for from app/icon.svg, once; the PNGs are committed.
// Run again after changing the icon: node scripts/make-icons.mjs
import { readFileSync } from "node:fs";
import sharp from "sharp";

const svg = readFileSync("app/icon.svg", "utf8");
const inner = svg
  .replace(/^<svg[^>]*>/, "")
  .replace(/<\/svg>\s*$/, "")
  .replace(/<rect[^>]*\/>/, "");
const background = /<rect[^>]*fill="([^"]+)"/.exec(svg)?.[1] ?? "#4f46e5";

// Full-bleed square with the glyph inside the middle 80%, as a maskable icon (and iOS, which rounds the corners itself) needs.
const square = (scale) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" fill="${background}"/><g transform="translate(12 12) scale(${scale}) translate(-12 -12)">${inner}</g></svg>`;

const render = (source, size, out) =>
  sharp(Buffer.from(source), { density: Math.ceil((72 * size) / 24) })
    .resize(size, size)
    .png()
    .toFile(out)
    .then(() => console.log(`wrote ${out}`));

await render(svg, 192, "public/icons/icon-192.png");
await render(svg, 512, "public/icons/icon-512.png");
await render(square(0.75), 512, "public/icons/icon-maskable-512.png");
await render(square(0.85), 180, "app/apple-icon.png");
