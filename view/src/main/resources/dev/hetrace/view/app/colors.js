// How a label is painted. Names (tasks, functions, interrupts) have their own colors, distinct
// within the trace set (the server's palette: Labels.java). Task states are not hues: on a task's
// row a state is a pattern of the task's own color (running solid, preempted striped, runnable
// sparsely striped, blocked hatched grey, waiting dotted grey, idle light grey, dead dark grey), so
// that no state can be mistaken for another task.

/** Each state's look: the base it is drawn in (the task's color, or grey), and its pattern. */
export const STATE_LOOK = {
  running: {base: 'task', pattern: 'solid', text: "the task's color: running"},
  preempted: {base: 'task', pattern: 'stripes', text: 'striped: preempted'},
  runnable: {base: 'task', pattern: 'sparse', text: 'sparsely striped: runnable'},
  blocked: {base: '#6b6b6b', pattern: 'hatch', text: 'hatched grey: blocked'},
  waiting: {base: '#8a8a8a', pattern: 'dots', text: 'dotted grey: waiting'},
  idle: {base: '#e6e6e6', pattern: 'solid', text: 'light grey: idle'},
  dead: {base: '#3a3a3a', pattern: 'solid', text: 'dark grey: dead'},
};
const NEUTRAL = '#8a8a8a';

const states = new WeakMap();

/** Per label id, the state it is ('(blocked)' → 'blocked') or null: worked out once per label, read per column. */
export function labelStates(meta) {
  let by = states.get(meta);
  if (!by) {
    by = meta.labels.map(n => {
      if (!n || n[0] !== '(' || n[n.length - 1] !== ')') return null;
      const s = n.slice(1, -1);
      return STATE_LOOK[s] ? s : null;
    });
    states.set(meta, by);
  }
  return by;
}

/** The state a label is ('(blocked)' → 'blocked'), or null. */
export function stateOf(meta, label) {
  return labelStates(meta)[label] ?? null;
}

const patterns = new Map();

/** A pattern (an 8×8 tile) of color over white: the state's look. */
function pattern(ctx, color, kind) {
  const key = color + kind;
  let p = patterns.get(key);
  if (p) return p;
  const tile = document.createElement('canvas');
  tile.width = tile.height = 8;
  const t = tile.getContext('2d');
  t.fillStyle = '#fff';
  t.fillRect(0, 0, 8, 8);
  t.strokeStyle = t.fillStyle = color;
  if (kind === 'stripes' || kind === 'sparse' || kind === 'hatch') {
    t.lineWidth = kind === 'stripes' ? 3 : 1.5;
    t.beginPath();
    for (const o of [-8, 0, 8]) { t.moveTo(o, 8); t.lineTo(o + 8, 0); }
    if (kind === 'hatch') for (const o of [-8, 0, 8]) { t.moveTo(o, 0); t.lineTo(o + 8, 8); }
    t.stroke();
  } else if (kind === 'dots') {
    t.fillRect(1, 1, 2, 2);
    t.fillRect(5, 5, 2, 2);
  }
  p = ctx.createPattern(tile, 'repeat');
  patterns.set(key, p);
  return p;
}

const taskColor = new Map();

/** The color of the task a row is about (a task's row or one of its call rows), or null. */
function rowTaskColor(meta, row) {
  if (taskColor.has(row)) return taskColor.get(row);
  let c = null;
  for (let r = row; r >= 0; r = meta.rows[r].parent) {
    if (meta.rows[r].kind === 'task') {
      const l = meta.labels.indexOf(meta.rows[r].name);
      if (l >= 0) c = meta.colors[l];
      break;
    }
  }
  taskColor.set(row, c);
  return c;
}

/** The fill of label on row (a canvas color or pattern). */
export function paint(ctx, meta, label, row) {
  const s = stateOf(meta, label);
  if (!s) return meta.colors[label];
  const look = STATE_LOOK[s];
  const base = look.base === 'task' ? rowTaskColor(meta, row) ?? NEUTRAL : look.base;
  return look.pattern === 'solid' ? base : pattern(ctx, base, look.pattern);
}

const texts = new Map();

/** The color of a name written over label's fill: dark over light colors and patterns, else white. */
export function textOn(meta, label) {
  let t = texts.get(label);
  if (t === undefined) texts.set(label, t = textColor(meta, label));
  return t;
}

function textColor(meta, label) {
  const s = stateOf(meta, label);
  if (s) return STATE_LOOK[s].pattern === 'solid' && s !== 'idle' ? '#fff' : '#222';
  const c = meta.colors[label];
  if (!c || c[0] !== '#' || c.length !== 7) return '#fff';
  const [r, g, b] = [1, 3, 5].map(i => parseInt(c.slice(i, i + 2), 16) / 255);
  // relative luminance (sRGB, roughly): above 0.5 the white text would be hard to read
  return 0.2126 * r * r + 0.7152 * g * g + 0.0722 * b * b > 0.3 ? '#222' : '#fff';
}

/** Notes that label was drawn in this frame (lastDraw.labels: their ids, in the order first drawn). */
export function drawnLabels(draw, label) {
  if (label < 0) return;
  const seen = draw.seen || (draw.seen = new Set());
  if (!seen.has(label)) {
    seen.add(label);
    draw.labels.push(label);
  }
}

/** A small swatch of label as drawn on row (a canvas element), for the legend and the panels. */
export function swatch(meta, label, row = -1, color = null) {
  const c = document.createElement('canvas');
  c.className = 'swatch';
  c.width = c.height = 12;
  const ctx = c.getContext('2d');
  ctx.fillStyle = color ?? paint(ctx, meta, label, row);
  ctx.fillRect(0, 0, 12, 12);
  return c;
}

/** A swatch of a state (the legend's): in grey, standing for any task's color. */
export function stateSwatch(state) {
  const c = document.createElement('canvas');
  c.className = 'swatch';
  c.width = c.height = 12;
  const ctx = c.getContext('2d');
  const look = STATE_LOOK[state];
  const base = look.base === 'task' ? '#9a9a9a' : look.base;
  ctx.fillStyle = look.pattern === 'solid' ? base : pattern(ctx, base, look.pattern);
  ctx.fillRect(0, 0, 12, 12);
  return c;
}
