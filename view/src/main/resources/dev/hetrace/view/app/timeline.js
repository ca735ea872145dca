// The timeline: rows with collapse/expand, a ruler on the reference clock, rectangles or
// aggregated columns per row as the server answers for the pixels, message arrows; zoom, pan,
// range selection, hover and click. Times are ns from the first event.

import {get} from './source.js';
import {W as wire} from './wire.js';
import {collapseKernelRows, counterText, drawCounter, drawOccupancy, drawSamples, occupancyRows, samplesText} from './kernel.js';
import {paint, drawnLabels, labelStates, textOn} from './colors.js';
import {BarLayer, pixelOf} from './bars.js';

const ROW_H = 18;
const RULER_H = 26;
const LABEL_W = 210;
const INDENT = 12;
/** The height of an activity bar at full load, px. */
const BAR_H = ROW_H - 3;
/** The shortest bar drawn for any activity, however small its share: nothing busy is left blank. */
export const MIN_BAR = 3;
/** Intervals narrower than this (px) are not drawn one by one but add up in their pixels, as columns do. */
const NARROW = 2;
/** An interval wider than this (px) has its name written in it. */
const NAMED = 40;
/** With idle stretches compressed, each takes this many px. */
const GAP = 8;
/**
 * After a single move of the view, what is there is drawn (moved and scaled) if the answer takes longer than this (ms):
 * the bound a zoom's answer is held to, as a stale frame drawn sooner holds up the answer's own when it comes meanwhile.
 */
const STALE_AFTER = 100;
/** An idle stretch is compressed when it would take more than this many px. */
const GAP_MIN = 2 * GAP;
/** At most this many idle stretches compressed in one view (the longest). */
const MAX_GAPS = 48;

/** The height of the bar of a busy share (‰): to scale, but at least {@link MIN_BAR} when anything is there. */
export function barHeight(busy, starts) {
  return busy > 0 ? Math.max(MIN_BAR, Math.round(BAR_H * busy / 1000)) : starts > 0 ? MIN_BAR : 0;
}

/**
 * The bars of a frame's aggregated activity, gathered by how they are painted (a label; a task state: per row, in its
 * task's color or pattern; the rest of the busy time: -1; a trace of activity too small to show its share: -2), then
 * painted per color: thousands of columns cost a few fills, not a style change and a fill each.
 */
class BarSet {
  constructor(meta, draw) {
    this.stateOf = labelStates(meta);
    this.labels = meta.labels.length;
    this.draw = draw;
    /** Per color (a label, or a state's label and row): {label, row, r: x, y, w, h of each bar}. */
    this.byColor = new Map();
    this.count = 0;
  }

  /** A bar of label on row: [x, x + w) × [y, y + h), CSS pixels. */
  add(label, x, y, w, h, row) {
    const key = label >= 0 && this.stateOf[label] ? label + this.labels * (row + 1) : label;
    let b = this.byColor.get(key);
    if (b === undefined) {
      this.byColor.set(key, b = {label, row, r: []});
      drawnLabels(this.draw, label);
    }
    b.r.push(x, y, w, h);
    this.count++;
  }
}

/** The whole pixel of time t: from the view's start and px per ns, or from xAt where idle stretches are compressed. */
function columnPx(t, from, pxPerNs, xAt) {
  return Math.round(xAt === null ? LABEL_W + (t - from) * pxPerNs : xAt(t));
}

/**
 * The bars of a row's aggregated columns c (answer d's), its bottom at y = bottom, into bars: per column, its labels
 * stacked from the bottom, largest first, in a bar as high as the busy share (at least MIN_BAR), each label's part of
 * it as its share of the busy time. Whole pixels: a bar's height says its share, to the pixel (columnPx). The hottest
 * loop of a wide view (a few rows of thousands of columns): a small function of its own, which the browser compiles
 * within a frame or two (inside the frame's long drawing, it ran uncompiled for several frames: 20–40 ms each).
 */
function columnBars(c, d, bottom, row, from, pxPerNs, xAt, bars) {
  const {stride, x: cx, n: cn, busy: cb, starts: cs, labelAt, shareAt} = wire.col;
  const tops = wire.top;
  const colNs = (d.to - d.from) / d.width;
  for (let k = 0; k < c.length; k += stride) {
    const x = columnPx(d.from + c[k + cx] * colNs, from, pxPerNs, xAt);
    const w = Math.max(1, columnPx(d.from + (c[k + cx] + c[k + cn]) * colNs, from, pxPerNs, xAt) - x);
    const busy = c[k + cb];
    const total = barHeight(busy, c[k + cs]);
    let done = 0;
    let acc = 0;
    for (let j = 0; j < tops && busy > 0; j++) {
      const label = c[k + labelAt[j]];
      if (label < 0) break;
      acc += c[k + shareAt[j]];
      const upto = Math.min(total, Math.round(total * Math.min(1, acc / busy)));
      if (upto > done) bars.add(label, x, bottom - upto, w, upto - done, row);
      done = Math.max(done, upto);
    }
    if (total > done) bars.add(busy > 0 ? -1 : -2, x, bottom - total, w, total - done, row);
  }
}

/**
 * From how many bars in a frame they are painted as pixels (bars.js); below, as paths. A wide view of many cores
 * has tens of thousands, whose paths took 16–25 ms to rasterize against 2–3 ms as an image; a report at its size
 * limit has hundreds, whose paths take less than putting the image did there (12–30 ms).
 */
const PIXEL_BARS = 4000;

/** W and S: the span's factor; A and D: the span's fraction panned (per key press, as Perfetto's). */
export const KEY_ZOOM = 0.8;
export const KEY_PAN = 0.1;

/** ns as text, in the unit of {@code scale} (a duration), with the digits its precision needs. */
export function formatTime(ns, scale = ns) {
  const a = Math.abs(scale) || 1;
  // 999,960 ns would round to 1000.0 µs: the next unit from there
  const [unit, name] = a >= 0.99995e9 ? [1e9, 's'] : a >= 0.99995e6 ? [1e6, 'ms'] : a >= 0.99995e3 ? [1e3, 'µs'] : [1, 'ns'];
  return (ns / unit).toFixed(Math.max(0, Math.min(6, 3 - Math.floor(Math.log10(Math.max(1, a / unit)))))) + ' ' + name;
}

/** A ruler tick: in the unit of ten steps, with the digits a step needs. */
function formatTick(ns, step) {
  const a = step * 10;
  const [unit, name] = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
  return (ns / unit).toFixed(Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9))) + ' ' + name;
}

export class Timeline {
  constructor(canvas, tooltip, meta, listeners) {
    this.canvas = canvas;
    this.tooltip = tooltip;
    this.meta = meta;
    this.on = listeners; // {click(row, from, to), view(from, to)}
    this.from = 0;
    this.to = Math.max(1, meta.span);
    this.scrollY = 0;
    this.density = false;
    /** Whether core rows mark the sync handshake's events (other point events are always marked). */
    this.syncMarks = false;
    /** Whether message arrows are drawn. */
    this.arrows = true;
    /** The aggregated columns' bars of a frame, as pixels (bars.js), when they are at least pixelBars. */
    this.bars = new BarLayer();
    this.pixelBars = PIXEL_BARS;
    /** Where the diagnosis sees something out of line, per row: outliers, a core gone silent, a task stuck. */
    this.alerts = [];
    this.data = null; // the last answer, with the range it was asked for
    /** Whether stretches where every core is idle are compressed; then the axis (segments) they were compressed into. */
    this.compress = false;
    this.axis = null;
    /** The answers drawn: one; with idle stretches compressed, one per active stretch. */
    this.parts = [];
    /** Settled when the first view is drawn, or its request failed. */
    this.firstView = new Promise((ok, fail) => { this.firstSettle = {ok, fail}; });
    // the image the bars of a wide view are put in, made and put once (a transparent pixel) after the first view:
    // made and put first by the first zoom that needed it, it took that zoom 20 to 30 ms more
    this.firstView.then(() => setTimeout(() => {
      if (!this.ctx) return;
      this.bars.begin(this.canvas.width, this.canvas.height, this.dpr);
      this.bars.fill(0, LABEL_W, RULER_H, 1, 1); // transparent: nothing shows
      this.bars.end(this.ctx);
    }, 0), () => {});
    this.seq = 0;
    this.pending = 0;
    this.moved = false; // the view moved while an answer was on its way
    this.frame = 0; // the drawing asked for the next frame, if any
    this.stale = 0; // the drawing of what is there, if the answer is late
    this.asking = false; // a request is to be made once the calling code is done
    this.highlight = null;
    this.collapsed = new Set();
    this.children = meta.rows.map(() => []);
    for (const r of meta.rows) if (r.parent >= 0) this.children[r.parent].push(r.id);
    // cores with a schedule show their tasks when asked; tasks whose scheduling is not traced are open
    for (const r of meta.rows) {
      if (r.group && r.kind === 'core' && r.intervals > 0) this.collapsed.add(r.id);
      // a group of many cores shows its clusters, each closed: the first screen holds every group
      if (r.kind === 'group' && r.parent >= 0 && meta.rows[r.parent].kind === 'group') this.collapsed.add(r.id);
    }
    // a board laid out in groups of groups (clusters of chips) too many to list shows its outermost groups
    // closed, so that the first screen still holds every group
    const outer = r => r.kind === 'group' && (r.parent < 0 || meta.rows[r.parent].kind !== 'group');
    const second = meta.rows.filter(r => r.kind === 'group' && r.parent >= 0 && outer(meta.rows[r.parent]));
    if (second.length > 24) for (const r of meta.rows) if (outer(r)) this.collapsed.add(r.id);
    // lost events: counted under each row by the server (a group's: its cores')
    this.lost = meta.rows.map(r => r.lost || 0);
    if (meta.rows.filter(r => r.kind === 'core').length > 64) {
      for (const r of meta.rows) if (r.group && r.kind === 'trace') this.collapsed.add(r.id);
    }
    collapseKernelRows(meta, this.collapsed);
    this.occupancy = occupancyRows(meta); // CPU rows: what ran, at full height (kernel.js)
    this.lastDraw = null;
    /** Drawn over the tracks after each frame (the selection, the markers): f(ctx, timeline, top, bottom). */
    this.overlays = [];
    this.bind();
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
    this.resize();
  }

  // ---- layout

  visibleRows() {
    const out = [];
    const walk = id => {
      out.push(id);
      if (!this.collapsed.has(id)) for (const c of this.children[id]) walk(c);
    };
    for (const r of this.meta.rows) if (r.parent < 0) walk(r.id);
    return out;
  }

  /** The row drawn for row id: itself, or its nearest ancestor shown. */
  shownRow(id, shown) {
    while (id >= 0 && !shown.has(id)) id = this.meta.rows[id].parent;
    return id;
  }

  get width() { return Math.max(1, this.cssWidth - LABEL_W); }

  resize() {
    const p = this.canvas.parentElement;
    const dpr = window.devicePixelRatio || 1;
    // the observer's first call, at the size the constructor took: nothing to do
    if (this.ctx && this.cssWidth === p.clientWidth && this.cssHeight === p.clientHeight && this.dpr === dpr) return;
    this.dpr = dpr;
    this.cssWidth = p.clientWidth;
    this.cssHeight = p.clientHeight;
    this.canvas.width = Math.round(this.cssWidth * dpr);
    this.canvas.height = Math.round(this.cssHeight * dpr);
    this.ctx = this.canvas.getContext('2d');
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    // the canvas was cleared: what is there, at once; asked for again only if that is not the whole view (other
    // widths, rows the answer has not)
    this.draw();
    if (!this.lastDraw.fresh) this.request();
  }

  // ---- view changes

  setRange(from, to) {
    const span = Math.max(1, this.meta.span);
    let w = Math.max(10, Math.min(to - from, span * 1.2));
    let f = from;
    if (to - from !== w) f = (from + to) / 2 - w / 2;
    f = Math.max(-span * 0.1, Math.min(f, span * 1.1 - w));
    this.from = f;
    this.to = f + w;
    this.on.view(this.from, this.to);
    this.request();
  }

  zoomTo(from, to) { this.setRange(from, to); }
  fit() { this.setRange(-this.meta.span * 0.01, this.meta.span * 1.01); }

  zoom(factor, atX) {
    const t = this.timeAt(atX);
    this.setRange(t - (t - this.from) * factor, t + (this.to - t) * factor);
  }

  pan(fraction) {
    const d = (this.to - this.from) * fraction;
    this.setRange(this.from + d, this.to + d);
  }

  scroll(dy) {
    const max = Math.max(0, this.visibleRows().length * ROW_H - (this.cssHeight - RULER_H));
    this.scrollY = Math.max(0, Math.min(max, this.scrollY + dy));
    this.request();
  }

  /** Opens the ancestors of row id and scrolls it into view. */
  reveal(id) {
    for (let p = this.meta.rows[id].parent; p >= 0; p = this.meta.rows[p].parent) this.collapsed.delete(p);
    const i = this.visibleRows().indexOf(id);
    const h = this.cssHeight - RULER_H;
    if (i * ROW_H < this.scrollY || (i + 1) * ROW_H > this.scrollY + h) this.scrollY = Math.max(0, i * ROW_H - h / 3);
    this.request();
  }

  toggle(id) {
    if (this.collapsed.has(id)) this.collapsed.delete(id); else this.collapsed.add(id);
    this.request();
  }

  /** Takes /api/diagnosis's answer: its outliers, silent cores and stuck tasks are marked on the rows that show them. */
  setDiagnosis(d) {
    const a = [];
    for (const o of d.outliers || []) if (o.row >= 0) a.push({row: o.row, start: o.start, end: o.end, what: `${o.name}: outlier`});
    for (const s of d.silent || []) if (s.row >= 0) a.push({row: s.row, start: s.last, end: this.meta.span, what: `${s.trace} silent`});
    for (const s of d.stuck || []) if (s.row >= 0) a.push({row: s.row, start: s.since, end: this.meta.span, what: `${s.task} stuck`});
    this.alerts = a;
    // drawn at the next frame, not in the task that read the diagnosis; not then when an answer is on its way, which
    // is drawn with them: redrawing the old one held up the zoom that asked for it
    if (this.lastDraw) this.lastDraw.fresh = false;
    if (this.pending === 0) this.drawSoon();
  }

  timeAt(x) {
    const a = this.compress && this.axis;
    if (!a) return this.from + (x - LABEL_W) / this.width * (this.to - this.from);
    const px = x - LABEL_W;
    let lo = 0;
    let hi = a.segs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a.segs[mid].x + a.segs[mid].w > px) hi = mid; else lo = mid + 1;
    }
    const sg = a.segs[lo];
    return sg.from + (px - sg.x) / sg.w * (sg.to - sg.from);
  }

  xAt(t) {
    const a = this.compress && this.axis;
    if (!a) return LABEL_W + (t - this.from) / (this.to - this.from) * this.width;
    let lo = 0;
    let hi = a.segs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a.segs[mid].to > t) hi = mid; else lo = mid + 1;
    }
    const sg = a.segs[lo];
    return LABEL_W + sg.x + (t - sg.from) / (sg.to - sg.from) * sg.w;
  }

  /** Compresses (or not) the stretches where every core is idle, each to a few pixels shaded by how much. */
  setCompress(on) {
    this.compress = on;
    if (!on) this.axis = null;
    this.request();
  }

  /**
   * The axis of a view with its idle stretches compressed, from the board's activity at a finer width: the
   * stretches of empty columns longer than GAP_MIN px take GAP px each, the others share the rest of the width in
   * proportion to their time. Null when nothing is idle long enough.
   */
  compressedAxis(board, from, to, fine, width) {
    const used = new Uint8Array(fine);
    const row = board.rows[0];
    const C = wire.col;
    if (row && row.cols) {
      for (let k = 0; k < row.cols.length; k += C.stride) used.fill(1, row.cols[k + C.x], row.cols[k + C.x] + row.cols[k + C.n]);
    }
    if (row && row.rects) {
      const R = wire.rect;
      for (let k = 0; k < row.rects.length; k += R.stride) {
        const a = Math.max(0, Math.floor((row.rects[k + R.start] - from) / (to - from) * fine));
        const b = Math.min(fine, Math.ceil((row.rects[k + R.end] - from) / (to - from) * fine));
        used.fill(1, a, Math.max(a + 1, b));
      }
    }
    const minRun = Math.ceil(GAP_MIN * fine / width) + 2;
    let runs = [];
    for (let x = 0; x < fine;) {
      if (used[x]) { x++; continue; }
      let e = x;
      while (e < fine && !used[e]) e++;
      // a column's margin kept on each side of the activity
      if (e - x >= minRun) runs.push([x === 0 ? 0 : x + 1, e === fine ? fine : e - 1]);
      x = e;
    }
    if (runs.length === 0) return null;
    runs = runs.sort((a, b) => (b[1] - b[0]) - (a[1] - a[0])).slice(0, MAX_GAPS).sort((a, b) => a[0] - b[0]);
    const at = x => Math.round(from + x * (to - from) / fine);
    const segs = [];
    let x = 0;
    for (const [a, b] of runs) {
      if (a > x) segs.push({from: at(x), to: at(a), idle: false});
      segs.push({from: at(a), to: at(b), idle: true});
      x = b;
    }
    if (x < fine) segs.push({from: at(x), to: to, idle: false});
    const active = segs.filter(g => !g.idle).reduce((n, g) => n + (g.to - g.from), 0);
    const room = width - GAP * runs.length;
    if (active <= 0 || room < width / 4) return null;
    // whole pixels: each active stretch up to the rounded share of the time up to its end
    let px = 0;
    let t = 0;
    let shared = 0;
    for (const g of segs) {
      g.x = px;
      if (g.idle) {
        g.w = GAP;
      } else {
        t += g.to - g.from;
        const upto = Math.round(room * t / active);
        g.w = upto - shared;
        shared = upto;
      }
      px += g.w;
    }
    for (const g of segs) if (g.to <= g.from) g.to = g.from + 1;
    return {from, to, width, segs: segs.filter(g => g.w > 0)};
  }

  // ---- data

  rowsOnScreen() {
    const rows = this.visibleRows();
    const first = Math.floor(this.scrollY / ROW_H);
    const n = Math.ceil((this.cssHeight - RULER_H) / ROW_H) + 1;
    return {rows, first, onScreen: rows.slice(first, first + n)};
  }

  /**
   * Asks for the current view once the calling code is done (the changes of one event, such as the constructor's size
   * then the first range, make one request): at once, unless an answer is on its way, then as soon as it comes (one
   * request in flight at most, the last view asked for always asked: a continuous zoom gets each answer as fast as the
   * server gives them, and a pause of the wheel or a key pressed again waits for nothing). What is there meanwhile
   * (the last answer, moved and scaled) is drawn at the next frame while the view keeps moving, so that it follows the
   * wheel; after a single move, only if the answer is later than STALE_AFTER ms (drawn sooner, it held up the answer's
   * own drawing when the answer came while it was drawn).
   */
  request() {
    if (this.lastDraw) this.lastDraw.fresh = false; // it no longer answers the view asked for
    if (this.asking) return;
    this.asking = true;
    // the first view in a task of its own: the page's loading and its first answer (a report computes it here) do
    // not make one long task
    const soon = this.data === null ? f => setTimeout(f, 0) : queueMicrotask;
    soon(() => {
      this.asking = false;
      const moving = this.pending > 0;
      if (moving) this.moved = true;
      else this.fetch();
      clearTimeout(this.stale);
      if (moving) this.drawSoon();
      else this.stale = setTimeout(() => this.drawSoon(), STALE_AFTER);
    });
  }

  /** Draws what is there at the next frame, unless an answer to the current view is drawn by then. */
  drawSoon() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.lastDraw || !this.lastDraw.fresh) this.draw();
    });
  }

  /** Asks for the view again if it moved while an answer was on its way. */
  askIfMoved() {
    if (this.moved) {
      this.moved = false;
      this.fetch();
    }
  }

  async fetch() {
    const {onScreen} = this.rowsOnScreen();
    const from = Math.floor(this.from);
    const to = Math.ceil(this.to);
    const width = Math.round(this.width);
    const seq = ++this.seq;
    this.pending++;
    try {
      let axis = null;
      if (this.compress) {
        // where every core is idle: the board's activity at a finer width
        const fine = Math.min(8192, width * 4);
        const board = await get(`api/view?from=${from}&to=${to}&width=${fine}&rows=0`);
        this.askIfMoved();
        if (seq !== this.seq) return; // the view moved meanwhile
        axis = this.compressedAxis(board, from, to, fine, width);
      }
      if (axis) {
        const active = axis.segs.filter(g => !g.idle);
        const answers = await Promise.all(active.map(g =>
          get(`api/view?from=${g.from}&to=${g.to}&width=${g.w}&rows=${onScreen.join(',')}`)));
        this.askIfMoved();
        if (seq !== this.seq) return;
        for (const a of answers) a.byRow = new Map(a.rows.map(r => [r.id, r]));
        this.axis = axis;
        this.parts = answers;
        this.data = {from, to, width, compressed: true, byRow: new Map(onScreen.map(id => [id, true])),
          sampled: answers.some(a => a.sampled)};
      } else {
        const answer = await get(`api/view?from=${from}&to=${to}&width=${width}&rows=${onScreen.join(',')}`);
        // the view moved meanwhile: ask for where it is now, and draw this answer, closer than what is drawn
        this.askIfMoved();
        if (this.on.answer) this.on.answer(answer);
        answer.byRow = new Map(answer.rows.map(r => [r.id, r]));
        this.axis = null;
        this.parts = [answer];
        this.data = answer;
      }
      this.draw();
      this.settleFirst(s => s.ok());
    } catch (e) {
      this.settleFirst(s => s.fail(e));
      throw e;
    } finally {
      this.pending--;
      this.askIfMoved();
    }
  }

  settleFirst(how) {
    if (this.firstSettle) {
      how(this.firstSettle);
      this.firstSettle = null;
    }
  }

  /** Whether what is drawn answers the current view. */
  settled() {
    return this.pending === 0 && this.data !== null && this.lastDraw !== null && this.lastDraw.fresh;
  }

  // ---- drawing

  draw() {
    const ctx = this.ctx;
    if (!ctx) return;
    const W = this.cssWidth;
    const H = this.cssHeight;
    ctx.clearRect(0, 0, W, H);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const {rows, first, onScreen} = this.rowsOnScreen();
    const shown = new Set(rows);
    const y = new Map();
    rows.forEach((id, i) => y.set(id, RULER_H + (i - first) * ROW_H));
    const d = this.data;
    const fresh = d !== null && d.from === Math.floor(this.from) && d.to === Math.ceil(this.to)
      && d.width === Math.round(this.width) && onScreen.every(id => d.byRow.has(id));
    const draw = {from: this.from, to: this.to, width: this.width, fresh, rows: [], rects: [], arrows: [], marks: [],
      columns: 0, alerts: [], labels: []};
    const nsPerPx = (this.to - this.from) / this.width;
    const parts = d ? (d.compressed ? this.parts : [d]) : [];
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, RULER_H, W - LABEL_W, H - RULER_H);
    ctx.clip();
    for (const id of onScreen) {
      if ((first + onScreen.indexOf(id)) % 2 === 1) {
        ctx.fillStyle = '#f7f7f7';
        ctx.fillRect(LABEL_W, y.get(id), W - LABEL_W, ROW_H);
      }
    }
    // message arrows under the rows' activity, which they point at
    if (this.arrows) this.drawArrows(parts, shown, y, H, draw);
    // compressed idle stretches: shaded, darker the more they hold
    if (d && d.compressed) {
      draw.gaps = [];
      for (const g of this.axis.segs) {
        if (!g.idle) continue;
        const factor = (g.to - g.from) / g.w / ((this.axis.to - this.axis.from) / this.axis.width);
        ctx.fillStyle = `rgba(90, 90, 90, ${Math.min(0.45, 0.1 + 0.1 * Math.log10(Math.max(1, factor)))})`;
        ctx.fillRect(LABEL_W + g.x, RULER_H, g.w, H - RULER_H);
        draw.gaps.push({from: g.from, to: g.to, x0: LABEL_W + g.x, x1: LABEL_W + g.x + g.w, factor});
      }
    }
    const bars = new BarSet(this.meta, draw);
    const load = new Map();
    for (const id of onScreen) {
      const row = this.meta.rows[id];
      const top = y.get(id);
      const info = {id, name: row.name, kind: row.kind, core: row.core, y: top, mode: 'none', n: 0};
      draw.rows.push(info);
      for (const part of parts) {
      const d = part;
      const a = d.byRow.get(id);
      if (!a) continue;
      if (a.samples) {
        info.mode = 'samples';
        info.samples = a.samples;
        info.part = {from: d.from, to: d.to, width: d.width}; // what the columns are of

        const g = {ctx, xAt: t => this.xAt(t), top, h: ROW_H - 3, meta: this.meta, row,
          scale: this.data.compressed ? 1 : (d.to - d.from) / d.width / nsPerPx};
        info.n = drawSamples(a.samples, d, g);
        info.range = g.range;
        continue;
      }
      if (a.values) {
        info.mode = 'counter';
        info.values = a.values;
        info.n = drawCounter(a.values, d, {ctx, xAt: t => this.xAt(t), top, h: ROW_H - 3, meta: this.meta, row,
          scale: this.data.compressed ? 1 : (d.to - d.from) / d.width / nsPerPx});
        continue;
      }
      if (a.rects) {
        info.mode = 'rects';
        const r = a.rects;
        const R = wire.rect;
        // intervals narrower than NARROW px add up per pixel (covered share, the label that took most): a dense
        // row reads as its load, not as stripes
        let narrow = null;
        for (let k = 0; k < r.length; k += R.stride) {
          const x0 = this.xAt(r[k + R.start]);
          const x1 = this.xAt(r[k + R.end]);
          if (x1 < LABEL_W || x0 > W) continue;
          const label = r[k + R.label];
          info.n++;
          draw.rects.push({row: id, rowName: row.name, core: row.core, start: r[k + R.start], end: r[k + R.end],
            label: this.meta.labels[label], state: r[k + R.state], x0, x1});
          if (x1 - x0 < NARROW) {
            if (!narrow) narrow = new Map();
            for (let px = Math.floor(x0); px < Math.max(x1, Math.floor(x0) + 1); px++) {
              const part = Math.max(1 / 64, Math.min(x1, px + 1) - Math.max(x0, px));
              let p = narrow.get(px);
              if (!p) narrow.set(px, p = {busy: 0, by: new Map()});
              p.busy += part;
              p.by.set(label, (p.by.get(label) || 0) + part);
            }
            continue;
          }
          const w = Math.max(1, x1 - x0);
          if (w <= NAMED) {
            // no room for its name: with the bars, painted per color (a wide view of a kernel trace has a thousand
            // or more; painted one by one, the canvas took tens of milliseconds to rasterize them)
            bars.add(label, x0, top + 2, w, ROW_H - 4, id);
            continue;
          }
          ctx.fillStyle = paint(ctx, this.meta, label, id);
          drawnLabels(draw, label);
          ctx.fillRect(x0, top + 2, w, ROW_H - 4);
          ctx.fillStyle = textOn(this.meta, label);
          ctx.save();
          ctx.beginPath();
          ctx.rect(Math.max(x0, LABEL_W), top, w, ROW_H);
          ctx.clip();
          ctx.fillText(this.meta.labels[label], Math.max(x0, LABEL_W) + 3, top + ROW_H / 2);
          ctx.restore();
        }
        if (narrow) {
          for (const [px, p] of narrow) {
            let best = -1;
            let most = -1;
            for (const [label, t] of p.by) if (t > most) { most = t; best = label; }
            // a CPU row says what ran, at full height wherever anything did (its load row says how much)
            const hh = this.occupancy.has(id) ? BAR_H : barHeight(Math.min(1000, Math.round(p.busy * 1000)), 1);
            bars.add(best, px, top + ROW_H - 1 - hh, 1, hh, id);
          }
        }
      } else if (a.cols) {
        info.mode = 'columns';
        const c = a.cols;
        const C = wire.col;
        // old answers while a new one comes
        const scale = this.data.compressed ? 1 : (d.to - d.from) / d.width / nsPerPx;
        // the load over the view: the busy share of its time, in %
        let sum = 0;
        for (let k = 0; k < c.length; k += C.stride) sum += c[k + C.busy] * c[k + C.n];
        load.set(id, (load.get(id) || 0) + sum / 10 * (d.to - d.from) / d.width / Math.max(1, this.data.to - this.data.from));
        if (this.occupancy.has(id) && !this.density && !this.smooth && !this.adjust) {
          info.n = drawOccupancy(c, d, {ctx, xAt: t => this.xAt(t), top, h: ROW_H - 3, scale, colors: this.meta.colors,
            drawn: l => drawnLabels(draw, l)});
          draw.columns += info.n;
          continue;
        }
        if (!this.density && (this.smooth || this.adjust)) {
          info.n = this.drawShaped(c, d, top, scale, id, draw);
          draw.columns += info.n;
          continue;
        }
        const linear = !(this.compress && this.axis);
        const xAt = linear ? null : t => this.xAt(t);
        if (this.density) {
          let maxCount = 1;
          for (let k = 0; k < c.length; k += C.stride) maxCount = Math.max(maxCount, c[k + C.starts]);
          const colNs = (d.to - d.from) / d.width;
          const pxPerNs = this.width / (this.to - this.from);
          for (let k = 0; k < c.length; k += C.stride) {
            const x = columnPx(d.from + c[k + C.x] * colNs, this.from, pxPerNs, xAt);
            const w = Math.max(1, columnPx(d.from + (c[k + C.x] + c[k + C.n]) * colNs, this.from, pxPerNs, xAt) - x);
            ctx.fillStyle = `rgba(60, 60, 140, ${0.15 + 0.85 * c[k + C.starts] / maxCount})`;
            ctx.fillRect(x, top + 2, w, ROW_H - 4);
          }
        } else {
          columnBars(c, d, top + ROW_H - 1, id, this.from, this.width / (this.to - this.from), xAt, bars);
        }
        info.n += c.length / C.stride;
        draw.columns += c.length / C.stride;
      }
      }
    }
    // many bars (a wide view): the solid ones as pixels, drawn as one image (bars.js); else, and a state's pattern,
    // as one path per color
    const asPixels = bars.count >= this.pixelBars;
    draw.bars = {count: bars.count, as: asPixels ? 'pixels' : 'paths'};
    if (asPixels) this.bars.begin(this.canvas.width, this.canvas.height, this.dpr);
    for (const b of bars.byColor.values()) {
      const style = b.label === -1 ? '#888' : b.label === -2 ? '#444' : paint(ctx, this.meta, b.label, b.row);
      if (asPixels && typeof style === 'string') {
        this.bars.fillAll(pixelOf(style), b.r);
        continue;
      }
      ctx.fillStyle = style;
      ctx.beginPath();
      for (let k = 0; k < b.r.length; k += 4) ctx.rect(b.r[k], b.r[k + 1], b.r[k + 2], b.r[k + 3]);
      ctx.fill();
    }
    if (asPixels) this.bars.end(ctx);
    // point events: a small triangle at the top of their core's row, the sync handshake's in blue when asked for
    const ticks = new Path2D();
    const syncTicks = new Path2D();
    for (const part of parts) {
      for (const id of onScreen) {
        const a = part.byRow.get(id);
        if (a && a.markCols) {
          // too many to tell apart: a tick per pixel column with any, darker the more
          const mc = a.markCols;
          const MC = wire.markCol;
          let most = 1;
          for (let k = 0; k < mc.length; k += MC.stride) most = Math.max(most, mc[k + MC.count]);
          for (let k = 0; k < mc.length; k += MC.stride) {
            const x = Math.round(this.xAt(part.from + mc[k + MC.x] * (part.to - part.from) / part.width));
            const x1 = Math.round(this.xAt(part.from + (mc[k + MC.x] + mc[k + MC.n]) * (part.to - part.from) / part.width));
            ctx.fillStyle = `rgba(34, 34, 34, ${0.35 + 0.65 * mc[k + MC.count] / most})`;
            ctx.fillRect(x, y.get(id), Math.max(1, x1 - x), 4);
          }
          draw.markColumns = (draw.markColumns || 0) + mc.length / MC.stride;
        }
        if (!a || !a.marks) continue;
        const top = y.get(id);
        const m = a.marks;
        const M = wire.mark;
        for (let k = 0; k < m.length; k += M.stride) {
          const sync = m[k + M.sync] === 1;
          if (sync && !this.syncMarks) continue;
          const x = this.xAt(m[k + M.time]);
          if (x < LABEL_W || x > W) continue;
          const p = sync ? syncTicks : ticks;
          p.moveTo(x - 3, top);
          p.lineTo(x + 3, top);
          p.lineTo(x, top + 5);
          p.closePath();
          draw.marks.push({row: id, core: this.meta.rows[id].core, time: m[k + M.time], label: this.meta.labels[m[k + M.label]],
            sync, x});
        }
      }
    }
    // every tick in one of two paths: two fills, not one per point event
    ctx.fillStyle = '#222';
    ctx.fill(ticks);
    ctx.fillStyle = '#1f5fbf';
    ctx.fill(syncTicks);
    // what the diagnosis finds out of line, on the row that shows it (a closed group stands for its cores): a red
    // dashed line along the top of the row, at least 3 px
    ctx.fillStyle = '#d62728';
    const flagged = new Map();
    for (const al of this.alerts) {
      const id = this.shownRow(al.row, shown);
      if (id < 0 || !y.has(id)) continue;
      flagged.set(id, (flagged.get(id) || 0) + 1);
      const x0 = Math.max(LABEL_W, this.xAt(al.start));
      const x1 = Math.min(W, this.xAt(al.end));
      if (x1 < LABEL_W || x0 > W) continue;
      // dashed, unlike any activity: 5 px of every 8
      const xa = Math.round(x0);
      const xb = Math.max(xa + 3, Math.round(x1));
      ctx.beginPath();
      for (let xx = xa; xx < xb; xx += 8) ctx.rect(xx, y.get(id), Math.min(5, xb - xx), 2);
      ctx.fill();
      draw.alerts.push({row: id, of: al.row, what: al.what, x0, x1});
    }
    if (this.highlight) {
      const x0 = this.xAt(this.highlight.start);
      const x1 = this.xAt(this.highlight.end);
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 2;
      const hy = y.get(this.shownRow(this.highlight.row, shown));
      if (hy !== undefined) ctx.strokeRect(x0 - 1, hy + 1, Math.max(2, x1 - x0) + 2, ROW_H - 2);
    }
    if (this.selecting) {
      ctx.fillStyle = 'rgba(78, 121, 167, .2)';
      const a = Math.min(this.selecting.x0, this.selecting.x1);
      ctx.fillRect(a, RULER_H, Math.abs(this.selecting.x1 - this.selecting.x0), H - RULER_H);
    }
    for (const f of this.overlays) f(ctx, this, RULER_H, H);
    ctx.restore();
    this.drawLabels(onScreen, y, load, flagged);
    this.drawRuler();
    draw.sampled = d ? d.sampled : false;
    draw.ticks = this.ticks;
    draw.cssWidth = this.cssWidth;
    this.lastDraw = draw;
    if (this.on.drawn) this.on.drawn(draw);
  }

  /** Message arrows between the rows shown for their cores; one line per pair of pixels, however many share it. */
  drawArrows(parts, shown, y, H, draw) {
    const ctx = this.ctx;
    const A = wire.arrow;
    const messages = new Set();
    let n = 0;
    for (const p of parts) n += p.arrows ? p.arrows.length / A.stride : 0;
    // many arrows: lighter, so that the rows stay readable under them
    const alpha = n > 300 ? 0.18 : n > 60 ? 0.35 : 0.6;
    ctx.strokeStyle = `rgba(30, 30, 30, ${alpha})`;
    ctx.fillStyle = `rgba(30, 30, 30, ${alpha + 0.1})`;
    ctx.lineWidth = 1;
    // every line in one path and every head in another: two strokes, not two per arrow
    const lines = new Path2D();
    const heads = new Path2D();
    const seen = new Set();
    for (const p of parts) {
    const a = p.arrows || [];
    for (let k = 0; k < a.length; k += A.stride) {
      // with idle stretches compressed, a message spanning several stretches is in each of their answers
      if (parts.length > 1) {
        if (messages.has(a[k + A.message])) continue;
        messages.add(a[k + A.message]);
      }
      const fr = this.shownRow(a[k + A.fromRow], shown);
      const tr = this.shownRow(a[k + A.toRow], shown);
      if (fr < 0 || tr < 0 || fr === tr) continue;
      const x0 = this.xAt(a[k + A.send]);
      const x1 = this.xAt(a[k + A.receive]);
      const y0 = y.get(fr) + ROW_H / 2;
      const y1 = y.get(tr) + ROW_H / 2;
      if (Math.max(y0, y1) < RULER_H || Math.min(y0, y1) > H) continue;
      draw.arrows.push({fromRow: fr, toRow: tr, fromCore: this.meta.rows[a[k + A.fromRow]].core,
        toCore: this.meta.rows[a[k + A.toRow]].core, send: a[k + A.send], receive: a[k + A.receive]});
      const key = `${fr},${tr},${Math.round(x0)},${Math.round(x1)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      lines.moveTo(x0, y0);
      lines.lineTo(x1, y1);
      const ang = Math.atan2(y1 - y0, x1 - x0);
      heads.moveTo(x1, y1);
      heads.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4));
      heads.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4));
      heads.closePath();
    }
    }
    ctx.stroke(lines);
    ctx.fill(heads);
  }

  /**
   * Aggregated columns reshaped as an aggregation prototype for many cores offers: Gaussian smoothing over the
   * neighbouring columns (0.05, 0.25, 0.4, 0.25, 0.05, renormalized at the edges) and adjustment
   * (rescaled between the row's minimum and maximum in view, so that close values differ).
   * Each column keeps its labels' proportions.
   */
  drawShaped(c, d, top, scale, row, draw) {
    const ctx = this.ctx;
    const n = d.width;
    const raw = new Float32Array(n);
    const run = new Int32Array(n).fill(-1);
    const C = wire.col;
    for (let k = 0; k < c.length; k += C.stride) {
      for (let x = c[k + C.x]; x < c[k + C.x] + c[k + C.n]; x++) {
        raw[x] = c[k + C.busy] / 1000;
        run[x] = k;
      }
    }
    let v = raw;
    if (this.smooth) {
      const G = [0.05, 0.25, 0.4, 0.25, 0.05];
      v = new Float32Array(n);
      for (let x = 0; x < n; x++) {
        let sum = 0;
        let weight = 0;
        for (let j = -2; j <= 2; j++) {
          if (x + j >= 0 && x + j < n) {
            sum += G[j + 2] * raw[x + j];
            weight += G[j + 2];
          }
          if (run[x] < 0 && x + j >= 0 && x + j < n && run[x + j] >= 0) run[x] = run[x + j];
        }
        v[x] = sum / weight;
      }
    }
    if (this.adjust) {
      let min = Infinity;
      let max = -Infinity;
      for (let x = 0; x < n; x++) {
        min = Math.min(min, v[x]);
        max = Math.max(max, v[x]);
      }
      if (max > min) v = v.map(a => (a - min) / (max - min));
    }
    const h = ROW_H - 3;
    let drawn = 0;
    for (let x = 0; x < n; x++) {
      if (v[x] <= 0 || run[x] < 0) continue;
      const k = run[x];
      const px = this.xAt(d.from + x * (d.to - d.from) / d.width);
      const w = Math.max(1, scale);
      let base = top + ROW_H - 1;
      const total = Math.max(1, c[k + C.busy]);
      let rest = v[x] * h;
      for (let j = 0; j < wire.top && c[k + C.labelAt[j]] >= 0; j++) {
        const hh = v[x] * h * c[k + C.shareAt[j]] / total;
        ctx.fillStyle = paint(ctx, this.meta, c[k + C.labelAt[j]], row);
        drawnLabels(draw, c[k + C.labelAt[j]]);
        ctx.fillRect(px, base - hh, w, hh);
        base -= hh;
        rest -= hh;
      }
      if (rest > 0.5) {
        ctx.fillStyle = '#888';
        ctx.fillRect(px, base - rest, w, rest);
      }
      drawn++;
    }
    return drawn;
  }

  /**
   * The rows' names; an aggregated row's load over the view (its busy share, %) on the right; a red count of what the
   * diagnosis finds out of line under it, and of the intervals that lost events.
   */
  drawLabels(onScreen, y, load = new Map(), flagged = new Map()) {
    const ctx = this.ctx;
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(0, RULER_H, LABEL_W, this.cssHeight - RULER_H);
    for (const id of onScreen) {
      const r = this.meta.rows[id];
      const top = y.get(id);
      const strong = r.kind === 'core' || r.kind === 'board' || r.kind === 'trace' || r.kind === 'group';
      const x = 6 + r.level * INDENT;
      let right = LABEL_W - 4;
      ctx.textAlign = 'right';
      ctx.font = '11px system-ui, sans-serif';
      const issues = (flagged.get(id) || 0) + (this.lost[id] > 0 ? 1 : 0);
      if (issues > 0) {
        ctx.fillStyle = '#d62728';
        const text = '⚠' + (flagged.get(id) || '') + (this.lost[id] > 0 ? ' lost' : '');
        ctx.fillText(text, right, top + ROW_H / 2);
        right -= ctx.measureText(text).width + 4;
      }
      if (load.has(id)) {
        ctx.fillStyle = '#777';
        const text = load.get(id) < 1 && load.get(id) > 0 ? '<1%' : `${Math.round(load.get(id))}%`;
        ctx.fillText(text, right, top + ROW_H / 2);
        right -= ctx.measureText(text).width + 4;
      }
      ctx.textAlign = 'left';
      ctx.fillStyle = strong ? '#111' : '#555';
      ctx.font = strong ? '600 12px system-ui, sans-serif' : '12px system-ui, sans-serif';
      if (r.group) ctx.fillText(this.collapsed.has(id) ? '▸' : '▾', x, top + ROW_H / 2);
      // a counter series' row says its unit
      ctx.fillText(r.unit ? `${r.name} (${r.unit})` : r.name, x + 12, top + ROW_H / 2, Math.max(10, right - x - 16));
    }
    ctx.strokeStyle = '#ddd';
    ctx.beginPath();
    ctx.moveTo(LABEL_W + 0.5, RULER_H);
    ctx.lineTo(LABEL_W + 0.5, this.cssHeight);
    ctx.stroke();
  }

  drawRuler() {
    const ctx = this.ctx;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.cssWidth, RULER_H);
    ctx.strokeStyle = '#bbb';
    ctx.beginPath();
    ctx.moveTo(0, RULER_H - 0.5);
    ctx.lineTo(this.cssWidth, RULER_H - 0.5);
    ctx.stroke();
    ctx.fillStyle = '#444';
    ctx.font = '11px system-ui, sans-serif';
    this.ticks = [];
    // one scale, or with idle stretches compressed one per active stretch (each gap marked ≈)
    const a = this.compress && this.axis;
    const spans = a ? a.segs : [{from: this.from, to: this.to, x: 0, w: this.width}];
    let free = 0;
    for (const g of spans) {
      if (g.idle) {
        ctx.fillText('≈', LABEL_W + g.x + g.w / 2 - 3, RULER_H - 8);
        continue;
      }
      const raw = (g.to - g.from) / (g.w / 110);
      const p = Math.pow(10, Math.floor(Math.log10(raw)));
      const step = [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
      for (let t = Math.ceil(g.from / step) * step; t <= g.to; t += step) {
        const x = this.xAt(t);
        ctx.fillRect(x, RULER_H - 7, 1, 7);
        const text = formatTick(t, step);
        // a label that would run past the right edge ends at its tick instead; one that would overlap the
        // previous label is left out
        const tw = ctx.measureText(text).width;
        const left = x + 3 + tw > this.cssWidth - 2 ? x - 3 - tw : x + 3;
        if (left < free) continue;
        ctx.fillText(text, left, RULER_H / 2 - 1);
        free = left + tw + 3;
        this.ticks.push({time: t, text, left, right: left + tw});
      }
    }
    for (const f of this.rulerOverlays || []) f(ctx, this, RULER_H);
    ctx.fillStyle = '#777';
    ctx.fillText('time from the first event', 6, RULER_H / 2 - 1);
  }

  // ---- interaction

  rowAtY(yy) {
    if (yy < RULER_H) return -1;
    const rows = this.visibleRows();
    const i = Math.floor((yy - RULER_H + this.scrollY) / ROW_H);
    return i < rows.length ? rows[i] : -1;
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('wheel', e => {
      e.preventDefault();
      this.tooltip.hidden = true;
      if (e.offsetX < LABEL_W) this.scroll(e.deltaY);
      else if (e.shiftKey) this.pan(e.deltaY / 1000);
      else this.zoom(Math.exp(e.deltaY * 0.0015), e.offsetX);
    }, {passive: false});
    c.addEventListener('mousedown', e => {
      if (e.offsetX < LABEL_W) return;
      this.dragging = {x: e.offsetX, y: e.offsetY, from: this.from, to: this.to, scrollY: this.scrollY, moved: false,
        select: e.shiftKey || e.offsetY < RULER_H};
      if (this.dragging.select) this.selecting = {x0: e.offsetX, x1: e.offsetX};
      this.tooltip.hidden = true;
    });
    window.addEventListener('mousemove', e => {
      const r = c.getBoundingClientRect();
      const x = e.clientX - r.left;
      const yy = e.clientY - r.top;
      const g = this.dragging;
      if (g) {
        if (Math.abs(x - g.x) + Math.abs(yy - g.y) > 3) g.moved = true;
        if (g.select) {
          this.selecting.x1 = x;
          this.draw();
        } else if (g.moved) {
          const dt = (x - g.x) / this.width * (g.to - g.from);
          this.scrollY = g.scrollY;
          this.setRange(g.from - dt, g.to - dt);
          this.scroll(g.y - yy);
        }
        return;
      }
      if (x >= 0 && yy >= 0 && x <= r.width && yy <= r.height) this.hover(x, yy); else this.tooltip.hidden = true;
    });
    window.addEventListener('mouseup', e => {
      const g = this.dragging;
      if (!g) return;
      this.dragging = null;
      const r = c.getBoundingClientRect();
      const x = e.clientX - r.left;
      if (g.select) {
        this.selecting = null;
        const onRuler = g.y < RULER_H;
        const [a, b] = [this.timeAt(Math.min(x, g.x)), this.timeAt(Math.max(x, g.x))];
        // on the ruler: a drag selects a range, a click drops a marker; shift+drag on the tracks zooms
        if (onRuler && this.on.select && Math.abs(x - g.x) > 3) this.on.select(a, b);
        else if (onRuler && this.on.rulerClick && Math.abs(x - g.x) <= 3) this.on.rulerClick(this.timeAt(g.x));
        else if (Math.abs(x - g.x) > 3) this.setRange(a, b);
        this.draw();
      } else if (!g.moved) {
        const row = this.rowAtY(g.y);
        if (row >= 0) {
          const px = (this.to - this.from) / this.width;
          const t = this.timeAt(g.x);
          this.on.click(row, Math.floor(t - 3 * px), Math.ceil(t + 3 * px), this.pick(g.x, g.y));
        }
      }
    });
    c.addEventListener('click', e => {
      if (e.offsetX >= LABEL_W) return;
      const row = this.rowAtY(e.offsetY);
      if (row >= 0 && this.meta.rows[row].group) this.toggle(row);
    });
    c.addEventListener('mouseleave', () => { this.tooltip.hidden = true; this.pointerX = null; });
    document.addEventListener('mouseleave', () => { this.tooltip.hidden = true; this.pointerX = null; });
    window.addEventListener('blur', () => { this.tooltip.hidden = true; });
    c.addEventListener('mousemove', e => { this.pointerX = e.offsetX >= LABEL_W ? e.offsetX : null; });
    window.addEventListener('keydown', e => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey) return;
      const k = e.key;
      const at = this.pointerX ?? LABEL_W + this.width / 2;
      if (k === '+' || k === '=') this.zoom(0.5, LABEL_W + this.width / 2);
      else if (k === '-' || k === '_') this.zoom(2, LABEL_W + this.width / 2);
      else if (k === 'w' || k === 'W') this.zoom(KEY_ZOOM, at);
      else if (k === 's' || k === 'S') this.zoom(1 / KEY_ZOOM, at);
      else if (k === 'a' || k === 'A') this.pan(-KEY_PAN);
      else if (k === 'd' || k === 'D') this.pan(KEY_PAN);
      else if (k === 'ArrowLeft') this.pan(-0.2);
      else if (k === 'ArrowRight') this.pan(0.2);
      else if (k === 'ArrowUp') this.scroll(-ROW_H * 3);
      else if (k === 'ArrowDown') this.scroll(ROW_H * 3);
      else if (k === 'f' || k === 'F' || k === '0') this.fit();
      else return;
      this.tooltip.hidden = true;
      e.preventDefault();
    });
  }

  /** What is drawn at (x, yy): {rect} or {mark} (the topmost), or null. */
  pick(x, yy) {
    const row = this.rowAtY(yy);
    const ld = this.lastDraw;
    if (row < 0 || x < LABEL_W || !ld) return null;
    const {rows: visible, first} = this.rowsOnScreen();
    const top = RULER_H + (visible.indexOf(row) - first) * ROW_H;
    const mark = yy - top <= 6 ? ld.marks.filter(q => q.row === row && Math.abs(q.x - x) <= 3).pop() : undefined;
    if (mark) return {mark};
    const rect = ld.rects.filter(q => q.row === row && q.x0 - 1 <= x && x <= Math.max(q.x1, q.x0 + 1) + 1).pop();
    return rect ? {rect} : null;
  }

  hover(x, yy) {
    const tip = this.tooltip;
    const row = this.rowAtY(yy);
    const ld = this.lastDraw;
    if (row < 0 || x < LABEL_W || !ld) {
      tip.hidden = true;
      return;
    }
    const r = this.meta.rows[row];
    let html = null;
    const hit = ld.rects.filter(q => q.row === row && q.x0 - 1 <= x && x <= Math.max(q.x1, q.x0 + 1) + 1).pop();
    const {rows: visible, first} = this.rowsOnScreen();
    const top = RULER_H + (visible.indexOf(row) - first) * ROW_H;
    const mark = yy - top <= 6 ? ld.marks.filter(q => q.row === row && Math.abs(q.x - x) <= 3).pop() : undefined;
    // the diagnosis's findings marked along the top of the row
    const alerts = yy - top <= 4 ? ld.alerts.filter(q => q.row === row && q.x0 - 2 <= x && x <= Math.max(q.x1, q.x0 + 3) + 2) : [];
    if (alerts.length > 0) {
      html = alerts.slice(0, 8).map(q => `<b>${esc(q.what)}</b> <span class="muted">${esc(this.meta.rows[q.of].name)}</span>`)
        .join('<br>') + (alerts.length > 8 ? `<br>and ${alerts.length - 8} more` : '');
    } else if (mark) {
      html = `<b>${esc(mark.label)}</b> <span class="muted">${esc(r.name)}</span><br>at ${formatTime(mark.time)}`
        + (mark.sync ? '<br>a sync handshake event' : '');
    } else if (hit) {
      html = `<b>${esc(hit.label)}</b> <span class="muted">${esc(r.name)}${r.core && r.core !== r.name ? ' · ' + esc(r.core) : ''}</span><br>`
        + `${formatTime(hit.start)} → ${formatTime(hit.end)}<br>duration ${formatTime(hit.end - hit.start)}`
        + (r.kind === 'task' ? '' : ` · ${this.meta.states[hit.state]}`);
    } else {
      const tx = this.timeAt(x);
      const d = this.data && (this.data.compressed ? this.parts.find(p => p.from <= tx && tx < p.to) : this.data);
      const a = d && d.byRow.get(row);
      const gap = this.data && this.data.compressed && this.lastDraw.gaps.find(g => g.x0 <= x && x < g.x1);
      if (gap) {
        html = `idle from ${formatTime(gap.from)} to ${formatTime(gap.to)} (${formatTime(gap.to - gap.from)}), `
          + `compressed ${Math.round(gap.factor)}×`;
      } else if (a && a.samples) {
        const col = Math.floor((tx - d.from) / ((d.to - d.from) / d.width));
        html = `<b>${esc(r.name)}</b>${r.unit ? ` <span class="muted">${esc(r.unit)}</span>` : ''} `
          + `<span class="muted">${esc(r.core || '')}</span> around ${formatTime(tx)}<br>`
          + esc(samplesText(r, a.samples, col));
      } else if (a && a.values) {
        const col = Math.floor((tx - d.from) / ((d.to - d.from) / d.width));
        html = `<b>${esc(r.name)}</b> <span class="muted">${esc(r.core || '')}</span> around ${formatTime(tx)}<br>`
          + esc(counterText(r, a.values, d, col));
      } else if (a && a.cols) {
        const col = Math.floor((this.timeAt(x) - d.from) / ((d.to - d.from) / d.width));
        const c = a.cols;
        const C = wire.col;
        for (let k = 0; k < c.length; k += C.stride) {
          if (c[k + C.x] <= col && col < c[k + C.x] + c[k + C.n]) {
            const parts = [];
            for (let j = 0; j < wire.top && c[k + C.labelAt[j]] >= 0; j++) {
              parts.push(`<span class="swatch" style="background:${this.meta.colors[c[k + C.labelAt[j]]]}"></span>`
                + `${esc(this.meta.labels[c[k + C.labelAt[j]]])} ${(c[k + C.shareAt[j]] / 10).toFixed(1)} %`);
            }
            html = `<b>${esc(r.name)}</b> around ${formatTime(this.timeAt(x))}<br>busy ${(c[k + C.busy] / 10).toFixed(1)} %, `
              + `${c[k + C.starts]} starting<br>${parts.join('<br>')}`;
          }
        }
      }
    }
    if (!html) {
      tip.hidden = true;
      return;
    }
    tip.innerHTML = html;
    tip.hidden = false;
    tip.style.left = Math.min(x + 14, this.cssWidth - 300) + 'px';
    tip.style.top = (yy + 16) + 'px';
  }
}

export function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'})[c]);
}
