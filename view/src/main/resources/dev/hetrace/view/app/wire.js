// The layout of /api/view's flat arrays (rects, cols, arrows, marks, values), as /api/meta's `wire`
// gives it: the server's schema (Wire.java), documented in docs/view.md, "Wire schema". Every
// position the app reads is named here from that schema, in the viewer and in a report alike.

/** Per record kind: each field's position, and `stride` (numbers per record). */
export const W = {rect: null, col: null, arrow: null, mark: null, markCol: null, value: null, sample: null, top: 0};

const positions = names => {
  const at = {stride: names.length};
  names.forEach((n, i) => { at[n] = i; });
  return at;
};

/** Takes the schema of meta.wire (called once /api/meta is read). */
export function configure(wire) {
  W.rect = positions(wire.rect);
  W.arrow = positions(wire.arrow);
  W.mark = positions(wire.mark);
  W.markCol = positions(wire.markColumn);
  W.value = positions(wire.value || []);
  W.sample = positions(wire.sample || []);
  W.top = wire.top;
  const base = wire.column.length;
  const pair = wire.columnLabel.length;
  const col = positions(wire.column);
  col.stride = base + wire.top * pair;
  /** The positions of a column's j-th label and of its share (‰): labelAt[j], shareAt[j]. */
  col.labelAt = Array.from({length: wire.top}, (_, j) => base + pair * j + wire.columnLabel.indexOf('label'));
  col.shareAt = Array.from({length: wire.top}, (_, j) => base + pair * j + wire.columnLabel.indexOf('share'));
  W.col = col;
}

// ---- binary answers (`/api/view?format=binary`; docs/view.md, "Binary answers"): "HTVB", the
// JSON's length (u32, little-endian), the JSON, zeros up to a multiple of 8 bytes, then the arrays,
// each named in the JSON as {binary: 'i16' | 'i32' | 'f64', at, n} (at: bytes from the arrays'
// start). Read as typed arrays over the bytes received: indexed as the JSON arrays are, not parsed.

const TYPES = {i16: Int16Array, i32: Int32Array, f64: Float64Array};

/** Whether views can be asked for in binary: typed arrays read in the machine's byte order, and the arrays are little-endian. */
export const binaryViews = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** An /api/view answer sent as binary, with its arrays as typed arrays. */
export function readBinaryView(buf) {
  const head = new DataView(buf);
  if (buf.byteLength < 8 || head.getUint32(0, false) !== 0x48545642) throw new Error('not a binary view answer (no HTVB)');
  const n = head.getUint32(4, true);
  const base = 8 + n + ((8 - (n & 7)) & 7);
  if (base > buf.byteLength) throw new Error(`a binary view answer cut short: ${buf.byteLength} bytes, its JSON says ${n}`);
  const array = ({binary, at, n: count}) => {
    const T = TYPES[binary];
    if (!T || at % 8 !== 0 || base + at + count * T.BYTES_PER_ELEMENT > buf.byteLength) {
      throw new Error(`a binary view answer's array out of place: ${binary}, ${count} at ${at}`);
    }
    return new T(buf, base + at, count);
  };
  const json = new TextDecoder().decode(new Uint8Array(buf, 8, n));
  return JSON.parse(json, (k, v) => (v !== null && typeof v === 'object' && typeof v.binary === 'string' ? array(v) : v));
}
