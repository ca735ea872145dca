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
  /** The position of a column's j-th label and of its share (‰). */
  col.label = j => base + pair * j + wire.columnLabel.indexOf('label');
  col.share = j => base + pair * j + wire.columnLabel.indexOf('share');
  W.col = col;
}
