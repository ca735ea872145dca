// The rows of kernel traces: a CPU row shows what ran on it in every pixel column where anything
// ran (full height, the threads that took most of the column's busy time stacked in proportion;
// how busy the CPU was is its load row's), and counter rows (a CPU's load, an interrupt line's
// rate, the threads waiting for a CPU) are drawn as areas with their value on hover. timeline.js calls these for the rows they
// concern.

import {W as wire} from './wire.js';

/** The CPU rows drawn as occupancy: the core rows that have a load counter under them. */
export function occupancyRows(meta) {
  const out = new Set();
  for (const r of meta.rows) if (r.kind === 'counter' && r.counter === 'load') out.add(r.parent);
  return out;
}

/** Rows that start collapsed: a thread's or process's row with rows under it (its calls, its threads, the processes it created). */
export function collapseKernelRows(meta, collapsed) {
  const hasChildren = new Set(meta.rows.filter(r => r.parent >= 0).map(r => r.parent));
  const inThreads = id => {
    for (let p = id; p >= 0; p = meta.rows[p].parent) if (meta.rows[p].kind === 'process') return true;
    return false;
  };
  for (const r of meta.rows) {
    if (hasChildren.has(r.id) && (r.kind === 'task' || r.kind === 'process' && r.parent >= 0 && inThreads(r.parent))
        && inThreads(r.id)) collapsed.add(r.id);
    if (hasChildren.has(r.id) && r.kind === 'irq' && meta.rows[r.parent].kind === 'core'
        && occupancyRows(meta).has(r.parent)) collapsed.add(r.id);
  }
}

/**
 * Draws a CPU row's columns (wire.col records of answer d) at full height where anything ran.
 * g: {ctx, xAt, top, h, scale, colors, drawn}: drawn(label) told each label drawn (the legend's). Returns how
 * many column runs were drawn.
 */
export function drawOccupancy(c, d, g) {
  const C = wire.col;
  const byColor = new Map();
  const bar = (label, x, y, w, hh) => {
    if (label >= 0 && g.drawn) g.drawn(label);
    let b = byColor.get(label);
    if (!b) byColor.set(label, b = []);
    b.push(x, y, w, hh);
  };
  let n = 0;
  for (let k = 0; k < c.length; k += C.stride) {
    const busy = c[k + C.busy];
    const first = c[k + C.labelAt[0]];
    if (busy <= 0 && first < 0) continue;
    const x = g.xAt(d.from + c[k + C.x] * (d.to - d.from) / d.width);
    const w = Math.max(1, c[k + C.n] * g.scale);
    let base = g.top + g.h + 1;
    if (busy <= 0) {
      bar(first, x, base - g.h, w, g.h); // ran for less than a thousandth of the column
    } else {
      let rest = g.h;
      for (let j = 0; j < wire.top; j++) {
        const label = c[k + C.labelAt[j]];
        if (label < 0) break;
        const hh = g.h * Math.min(1, c[k + C.shareAt[j]] / busy);
        bar(label, x, base - hh, w, hh);
        base -= hh;
        rest -= hh;
      }
      if (rest > 0.5) bar(-1, x, base - rest, w, rest);
    }
    n++;
  }
  for (const [label, b] of byColor) {
    g.ctx.fillStyle = label < 0 ? '#888' : g.colors[label];
    g.ctx.beginPath();
    for (let k = 0; k < b.length; k += 4) g.ctx.rect(b[k], b[k + 1], b[k + 2], b[k + 3]);
    g.ctx.fill();
  }
  return n;
}

/** Half the window, in pixel columns, over which an interrupt line's rate is averaged. */
export const RATE_RADIUS = 5;

/**
 * A rate row's handlers per column (wire.value records over width columns) averaged over the
 * 2 × RATE_RADIUS + 1 columns around each: a few handlers per pixel read as a curve, not as ticks.
 */
export function smoothedRate(v, width) {
  const V = wire.value;
  const raw = new Float64Array(width);
  for (let k = 0; k < v.length; k += V.stride) {
    for (let x = v[k + V.x]; x < v[k + V.x] + v[k + V.n] && x < width; x++) raw[x] = v[k + V.value];
  }
  const out = new Float64Array(width);
  let sum = 0;
  for (let x = 0; x < Math.min(width, RATE_RADIUS); x++) sum += raw[x];
  for (let x = 0; x < width; x++) {
    if (x + RATE_RADIUS < width) sum += raw[x + RATE_RADIUS];
    if (x - RATE_RADIUS - 1 >= 0) sum -= raw[x - RATE_RADIUS - 1];
    const n = Math.min(width - 1, x + RATE_RADIUS) - Math.max(0, x - RATE_RADIUS) + 1;
    out[x] = sum / n;
  }
  return out;
}

/** The colour of a counter row: a CPU's load in blue, an interrupt line in its name's colour. */
function colorOf(row, meta) {
  if (row.counter === 'load') return '#4e79a7';
  if (row.counter === 'level') return '#f28e2b';
  if (row.counter === 'lost') return '#b07aa1';
  const label = meta.labels.indexOf(row.name);
  return label >= 0 ? meta.colors[label] : '#8c6bb1';
}

/**
 * Draws a counter row's values (wire.value records of answer d) as an area with its outline: a load
 * on its 0..100 % scale, a rate on the scale of its largest value in view. g: {ctx, xAt, top, h, scale, meta, row}.
 */
export function drawCounter(v, d, g) {
  const V = wire.value;
  const ctx = g.ctx;
  const color = colorOf(g.row, g.meta);
  const base = g.top + g.h + 1;
  const area = new Path2D();
  const line = new Path2D();
  let n = 0;
  const step = (x0, cols, value, full) => {
    const x = g.xAt(d.from + x0 * (d.to - d.from) / d.width);
    const w = Math.max(1, cols * g.scale);
    const hh = Math.max(1, g.h * Math.min(1, value / full));
    area.rect(x, base - hh, w, hh);
    line.moveTo(x, base - hh + 0.5);
    line.lineTo(x + w, base - hh + 0.5);
    n++;
  };
  if (g.row.counter === 'load') {
    for (let k = 0; k < v.length; k += V.stride) step(v[k + V.x], v[k + V.n], v[k + V.value], 1000);
  } else if (g.row.counter === 'level') {
    let full = 1;
    for (let k = 0; k < v.length; k += V.stride) full = Math.max(full, v[k + V.value]);
    for (let k = 0; k < v.length; k += V.stride) step(v[k + V.x], v[k + V.n], v[k + V.value], full);
  } else {
    const r = smoothedRate(v, d.width);
    const full = Math.max(...r, 1e-9);
    for (let x = 0; x < d.width;) {
      let e = x + 1;
      while (e < d.width && r[e] === r[x]) e++;
      if (r[x] > 0) step(x, e - x, r[x], full);
      x = e;
    }
  }
  ctx.globalAlpha = 0.45;
  ctx.fillStyle = color;
  ctx.fill(area);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.stroke(line);
  return n;
}

/** A counter's value at pixel column col of answer d, as text (null where it is 0). */
export function counterText(row, v, d, col) {
  const V = wire.value;
  for (let k = 0; k < v.length; k += V.stride) {
    if (v[k + V.x] <= col && col < v[k + V.x] + v[k + V.n]) {
      const value = v[k + V.value];
      if (row.counter === 'load') return `load ${(value / 10).toFixed(1)} %`;
      break;
    }
  }
  if (row.counter === 'load') return 'load 0.0 %';
  if (row.counter === 'level') return `${(counterValue(v, col) / 1000).toFixed(2)} on average in this pixel`;
  const nsPerCol = (d.to - d.from) / d.width;
  const here = counterValue(v, col);
  const rate = smoothedRate(v, d.width)[col] / nsPerCol * 1e9;
  return `${here} started in this pixel; ${formatRate(rate)} around it`;
}

/** The value of pixel column col (wire.value records), 0 where none is sent. */
function counterValue(v, col) {
  const V = wire.value;
  for (let k = 0; k < v.length; k += V.stride) if (v[k + V.x] <= col && col < v[k + V.x] + v[k + V.n]) return v[k + V.value];
  return 0;
}

function formatRate(perSecond) {
  return perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(2)} M/s`
    : perSecond >= 1e3 ? `${(perSecond / 1e3).toFixed(2)} k/s` : `${perSecond.toFixed(1)}/s`;
}

/**
 * Draws a counter series the traces carry (wire.sample records: min, max and average per column):
 * the band from the least to the greatest value of each column, and the average as a line, scaled
 * between 0 (or the least value in view, when negative) and the greatest in view. Returns how
 * many runs were drawn, and the scale (g.range).
 */
export function drawSamples(v, d, g) {
  const S = wire.sample;
  const ctx = g.ctx;
  const color = colorOf(g.row, g.meta);
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < v.length; k += S.stride) {
    lo = Math.min(lo, v[k + S.min]);
    hi = Math.max(hi, v[k + S.max]);
  }
  const span = hi - lo || 1;
  const base = g.top + g.h + 1;
  const yOf = value => base - Math.max(1, g.h * (value - lo) / span);
  const band = new Path2D();
  const line = new Path2D();
  let n = 0;
  for (let k = 0; k < v.length; k += S.stride) {
    const x = g.xAt(d.from + v[k + S.x] * (d.to - d.from) / d.width);
    const w = Math.max(1, v[k + S.n] * g.scale);
    const top = yOf(v[k + S.max]);
    band.rect(x, top, w, Math.max(1, yOf(v[k + S.min]) - top));
    const y = yOf(v[k + S.avg]) + 0.5;
    line.moveTo(x, y);
    line.lineTo(x + w, y);
    n++;
  }
  ctx.globalAlpha = 0.35;
  ctx.fillStyle = color;
  ctx.fill(band);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  ctx.stroke(line);
  g.range = [lo, hi];
  return n;
}

/** The hover text of pixel column col of a counter series' row. */
export function samplesText(row, v, col) {
  const S = wire.sample;
  const unit = row.unit ? ` ${row.unit}` : '';
  for (let k = 0; k < v.length; k += S.stride) {
    if (v[k + S.x] <= col && col < v[k + S.x] + v[k + S.n]) {
      if (row.counter === 'lost') return `${formatNumber(v[k + S.avg])} events lost in this pixel`;
      if (v[k + S.min] === v[k + S.max]) return `${formatNumber(v[k + S.avg])}${unit}`;
      return `${formatNumber(v[k + S.avg])}${unit} on average in this pixel `
        + `(${formatNumber(v[k + S.min])} to ${formatNumber(v[k + S.max])})`;
    }
  }
  return row.counter === 'lost' ? 'no event lost in this pixel' : 'no sample here';
}

function formatNumber(x) {
  const a = Math.abs(x);
  if (a >= 1e9) return `${(x / 1e9).toFixed(2)} G`;
  if (a >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (a >= 1e4) return `${(x / 1e3).toFixed(1)} k`;
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}
