// The bars of aggregated activity (thousands of one-pixel columns per frame on a wide view), painted as pixels
// into an image, then drawn at once. Filled as canvas paths, each frame's tens of thousands of rectangles took
// the browser 16–25 ms to rasterize without a GPU; written as pixels and drawn as one image, 2–3 ms. The columns'
// bars are whole CSS pixels, so the pixels are those a path would fill; an interval's bar is put to the nearest
// device pixels.

/** The 32-bit pixel (an ImageData's byte order) of each CSS color, as the browser itself paints it. */
const pixels = new Map();
let probe = null;

/** Whether a Uint32Array reads an ImageData's R, G, B, A bytes as A·2²⁴ + B·2¹⁶ + G·2⁸ + R. */
const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const HEX = /^#[0-9a-f]{6}$/i;

/**
 * The pixel of CSS color `color` in an ImageData's Uint32Array: a `#rrggbb` color's worked out from its digits (a
 * kernel trace's threads have hundreds of colors, and painting each on a probe then reading it back took tens of
 * milliseconds in the first frame that showed them); any other as the browser paints it on a probe.
 */
export function pixelOf(color) {
  let p = pixels.get(color);
  if (p === undefined && LITTLE && HEX.test(color)) {
    const v = parseInt(color.slice(1), 16);
    p = (0xff000000 | (v & 0xff) << 16 | (v & 0xff00) | (v >> 16 & 0xff)) >>> 0;
    pixels.set(color, p);
  }
  if (p === undefined) {
    if (!probe) {
      const c = document.createElement('canvas');
      c.width = c.height = 1;
      probe = c.getContext('2d', {willReadFrequently: true});
    }
    probe.clearRect(0, 0, 1, 1);
    probe.fillStyle = color;
    probe.fillRect(0, 0, 1, 1);
    p = new Uint32Array(probe.getImageData(0, 0, 1, 1).data.buffer)[0];
    pixels.set(color, p);
  }
  return p;
}

/** A layer of solid rectangles in device pixels, drawn onto a canvas as one image. */
export class BarLayer {
  constructor() {
    this.img = null;
    this.canvas = null;
  }

  /** Starts a frame of the canvas's size (device pixels), at dpr device pixels per CSS pixel. */
  begin(width, height, dpr) {
    if (!this.img || this.img.width !== width || this.img.height !== height) {
      this.canvas = document.createElement('canvas');
      this.canvas.width = width;
      this.canvas.height = height;
      this.ctx = this.canvas.getContext('2d');
      this.img = this.ctx.createImageData(width, height);
      this.px = new Uint32Array(this.img.data.buffer);
    }
    this.dpr = dpr;
    this.top = height; // the rows written: [top, bottom)
    this.bottom = 0;
  }

  /** Fills [x, x + w) × [y, y + h) (CSS pixels) with pixel p (pixelOf). */
  fill(p, x, y, w, h) {
    const d = this.dpr;
    const W = this.img.width;
    const x0 = Math.max(0, Math.round(x * d));
    const x1 = Math.min(W, Math.round((x + w) * d));
    const y0 = Math.max(0, Math.round(y * d));
    const y1 = Math.min(this.img.height, Math.round((y + h) * d));
    if (x0 >= x1 || y0 >= y1) return;
    const px = this.px;
    const n = x1 - x0;
    for (let i = y0 * W + x0, end = y1 * W + x0; i < end; i += W) {
      if (n === 1) px[i] = p;
      else px.fill(p, i, i + n);
    }
    if (y0 < this.top) this.top = y0;
    if (y1 > this.bottom) this.bottom = y1;
  }

  /** Fills the rectangles r (x, y, w, h, one after another, CSS pixels) with pixel p. */
  fillAll(p, r) {
    for (let k = 0; k < r.length; k += 4) this.fill(p, r[k], r[k + 1], r[k + 2], r[k + 3]);
  }

  /** Draws the frame's rectangles onto ctx (its clip applies; its transform does not), and clears them. */
  end(ctx) {
    if (this.top >= this.bottom) return;
    const W = this.img.width;
    const h = this.bottom - this.top;
    this.ctx.putImageData(this.img, 0, 0, 0, this.top, W, h);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.canvas, 0, this.top, W, h, 0, this.top, W, h);
    ctx.restore();
    this.px.fill(0, this.top * W, this.bottom * W);
  }
}
