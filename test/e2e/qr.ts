/** Decodes the QR code SVG Paddock draws (one path of `M x y h w v1 h-w z` runs) with jsQR. */
import jsQRModule from 'jsqr';

// jsqr is CommonJS: its default import is module.exports, whose `default` is the function.
const jsQR = jsQRModule.default;

export function decodeQrSvg(svg: string): string | undefined {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const d = /<path[^>]* d="([^"]+)"/.exec(svg)?.[1] ?? '';
  if (!size) return undefined;
  const scale = 4;
  const px = size * scale;
  const data = new Uint8ClampedArray(px * px * 4).fill(255);
  for (const m of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    const [x, y, w] = [Number(m[1]), Number(m[2]), Number(m[3])];
    for (let row = y * scale; row < (y + 1) * scale; row++) {
      for (let col = x * scale; col < (x + w) * scale; col++) {
        const i = (row * px + col) * 4;
        data[i] = data[i + 1] = data[i + 2] = 0;
      }
    }
  }
  return jsQR(data, px, px)?.data;
}
