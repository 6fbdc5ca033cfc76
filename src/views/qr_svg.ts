/**
 * Renders text as a QR code in an inline SVG: no script, no style, no external reference, so it
 * passes a `default-src 'none'` content security policy (inline SVG in HTML needs no xmlns). The text itself never appears in the SVG.
 */
import QRCode, { type BitMatrix } from 'qrcode';
import { html, type Html } from './html.ts';

/** Four modules of light border: the quiet zone ISO/IEC 18004 requires for readers to lock on. */
const QUIET = 4;
const PX_PER_MODULE = 6;

export function qrSvg(text: string, opts: { title?: string } = {}): Html {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size + 2 * QUIET;
  const title = opts.title ?? 'QR code';
  return html`<svg viewBox="0 0 ${size} ${size}" width="${size * PX_PER_MODULE}" height="${size * PX_PER_MODULE}" role="img" aria-label="${title}" shape-rendering="crispEdges"><title>${title}</title><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${darkRuns(modules)}"/></svg>`;
}

/**
 * The dark modules as SVG path data (numbers and letters, escaped by the tag like any attribute):
 * one horizontal run of dark modules is one `M x y h w v1 h-w z` segment, far shorter than squares.
 */
function darkRuns(modules: BitMatrix): string {
  const n = modules.size;
  let d = '';
  for (let row = 0; row < n; row++) {
    let col = 0;
    while (col < n) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < n && modules.get(row, col)) col++;
      d += `M${start + QUIET} ${row + QUIET}h${col - start}v1h-${col - start}z`;
    }
  }
  return d;
}
