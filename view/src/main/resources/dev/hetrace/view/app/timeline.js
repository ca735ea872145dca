// The timeline: rows with collapse/expand, a ruler on the reference clock, rectangles or
// aggregated columns per row as the server answers for the pixels, message arrows; zoom, pan,
// range selection, hover and click. Times are ns from the first event.

import {get} from './source.js';
import {W as wire} from './wire.js';
import {paint, drawnLabels, textOn} from './colors.js';

const ROW_H = 18;
const RULER_H = 26;
const LABEL_W = 210;
const INDENT = 12;
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
    this.data = null; // the last answer, with the range it was asked for
    /** Settled when the first view is drawn, or its request failed. */
    this.firstView = new Promise((ok, fail) => { this.firstSettle = {ok, fail}; });
    this.seq = 0;
    this.pending = 0;
    this.highlight = null;
    this.collapsed = new Set();
    this.children = meta.rows.map(() => []);
    for (const r of meta.rows) if (r.parent >= 0) this.children[r.parent].push(r.id);
    // cores with a schedule show their tasks when asked; tasks whose scheduling is not traced are open
    for (const r of meta.rows) {
      if (r.group && r.kind === 'core' && r.intervals > 0) this.collapsed.add(r.id);
    }
    if (meta.rows.filter(r => r.kind === 'core').length > 64) {
      for (const r of meta.rows) if (r.group && r.kind === 'trace') this.collapsed.add(r.id);
    }
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
    this.cssWidth = p.clientWidth;
    this.cssHeight = p.clientHeight;
    this.canvas.width = Math.round(this.cssWidth * dpr);
    this.canvas.height = Math.round(this.cssHeight * dpr);
    this.ctx = this.canvas.getContext('2d');
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.request();
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

  timeAt(x) { return this.from + (x - LABEL_W) / this.width * (this.to - this.from); }
  xAt(t) { return LABEL_W + (t - this.from) / (this.to - this.from) * this.width; }

  // ---- data

  rowsOnScreen() {
    const rows = this.visibleRows();
    const first = Math.floor(this.scrollY / ROW_H);
    const n = Math.ceil((this.cssHeight - RULER_H) / ROW_H) + 1;
    return {rows, first, onScreen: rows.slice(first, first + n)};
  }

  request() {
    this.draw();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetch(), 15);
  }

  async fetch() {
    const {onScreen} = this.rowsOnScreen();
    const from = Math.floor(this.from);
    const to = Math.ceil(this.to);
    const width = Math.round(this.width);
    const seq = ++this.seq;
    this.pending++;
    try {
      const answer = await get(`api/view?from=${from}&to=${to}&width=${width}&rows=${onScreen.join(',')}`);
      if (seq !== this.seq) return; // a newer view was asked for
      if (this.on.answer) this.on.answer(answer);
      answer.byRow = new Map(answer.rows.map(r => [r.id, r]));
      this.data = answer;
      this.draw();
      this.settleFirst(s => s.ok());
    } catch (e) {
      this.settleFirst(s => s.fail(e));
      throw e;
    } finally {
      this.pending--;
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
      columns: 0, labels: []};
    const nsPerPx = (this.to - this.from) / this.width;
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, RULER_H, W - LABEL_W, H - RULER_H);
    ctx.clip();
    for (const id of onScreen) {
      const row = this.meta.rows[id];
      const top = y.get(id);
      if ((first + onScreen.indexOf(id)) % 2 === 1) {
        ctx.fillStyle = '#f7f7f7';
        ctx.fillRect(LABEL_W, top, W - LABEL_W, ROW_H);
      }
      const a = d && d.byRow.get(id);
      const info = {id, name: row.name, kind: row.kind, core: row.core, y: top, mode: 'none', n: 0};
      draw.rows.push(info);
      if (!a) continue;
      if (a.rects) {
        info.mode = 'rects';
        const r = a.rects;
        const R = wire.rect;
        for (let k = 0; k < r.length; k += R.stride) {
          const x0 = this.xAt(r[k + R.start]);
          const x1 = this.xAt(r[k + R.end]);
          if (x1 < LABEL_W || x0 > W) continue;
          const label = r[k + R.label];
          ctx.fillStyle = paint(ctx, this.meta, label, id);
          drawnLabels(draw, label);
          const w = Math.max(1, x1 - x0);
          ctx.fillRect(x0, top + 2, w, ROW_H - 4);
          if (w > 40) {
            ctx.fillStyle = textOn(this.meta, label);
            const text = this.meta.labels[label];
            ctx.save();
            ctx.beginPath();
            ctx.rect(Math.max(x0, LABEL_W), top, w, ROW_H);
            ctx.clip();
            ctx.fillText(text, Math.max(x0, LABEL_W) + 3, top + ROW_H / 2);
            ctx.restore();
          }
          info.n++;
          draw.rects.push({row: id, rowName: row.name, core: row.core, start: r[k + R.start], end: r[k + R.end],
            label: this.meta.labels[label], state: r[k + R.state], x0, x1});
        }
      } else if (a.cols) {
        info.mode = 'columns';
        const c = a.cols;
        const C = wire.col;
        const scale = (d.to - d.from) / d.width / nsPerPx; // old answers while a new one comes
        if (!this.density && (this.smooth || this.adjust)) {
          info.n = this.drawShaped(c, d, top, scale, id, draw);
          draw.columns += info.n;
          continue;
        }
        let maxCount = 1;
        if (this.density) for (let k = 0; k < c.length; k += C.stride) maxCount = Math.max(maxCount, c[k + C.starts]);
        // the bars gathered by color (the rest of the busy time: -1), then one path filled per color:
        // thousands of columns cost a few fills, not a style change and a fill each
        const byColor = new Map();
        const bar = (label, x, y0, w, hh) => {
          drawnLabels(draw, label);
          let b = byColor.get(label);
          if (!b) byColor.set(label, b = []);
          b.push(x, y0, w, hh);
        };
        for (let k = 0; k < c.length; k += C.stride) {
          const x = this.xAt(d.from + c[k + C.x] * (d.to - d.from) / d.width);
          const w = Math.max(1, c[k + C.n] * scale);
          const h = ROW_H - 3;
          let base = top + ROW_H - 1;
          if (this.density) {
            ctx.fillStyle = `rgba(60, 60, 140, ${0.15 + 0.85 * c[k + C.starts] / maxCount})`;
            ctx.fillRect(x, top + 2, w, ROW_H - 4);
          } else {
            let rest = c[k + C.busy];
            for (let j = 0; j < wire.top; j++) {
              const label = c[k + C.label(j)];
              if (label < 0) break;
              const p = c[k + C.share(j)];
              const hh = h * p / 1000;
              bar(label, x, base - hh, w, hh);
              base -= hh;
              rest -= p;
            }
            if (rest > 0) bar(-1, x, base - h * rest / 1000, w, h * rest / 1000);
          }
          info.n++;
          draw.columns++;
        }
        for (const [label, b] of byColor) {
          ctx.fillStyle = label < 0 ? '#888' : paint(ctx, this.meta, label, id);
          ctx.beginPath();
          for (let k = 0; k < b.length; k += 4) ctx.rect(b[k], b[k + 1], b[k + 2], b[k + 3]);
          ctx.fill();
        }
      }
    }
    // point events: a small triangle at the top of their core's row, the sync handshake's in blue when asked for
    if (d) {
      for (const id of onScreen) {
        const a = d.byRow.get(id);
        if (!a || !a.marks) continue;
        const top = y.get(id);
        const m = a.marks;
        const M = wire.mark;
        for (let k = 0; k < m.length; k += M.stride) {
          const sync = m[k + M.sync] === 1;
          if (sync && !this.syncMarks) continue;
          const x = this.xAt(m[k + M.time]);
          if (x < LABEL_W || x > W) continue;
          ctx.fillStyle = sync ? '#1f5fbf' : '#222';
          ctx.beginPath();
          ctx.moveTo(x - 3, top);
          ctx.lineTo(x + 3, top);
          ctx.lineTo(x, top + 5);
          ctx.fill();
          draw.marks.push({row: id, core: this.meta.rows[id].core, time: m[k + M.time], label: this.meta.labels[m[k + M.label]],
            sync, x});
        }
      }
    }
    // message arrows between the rows shown for their cores
    if (d && d.arrows) {
      const a = d.arrows;
      // many arrows: lighter, so that the rows stay readable under them
      const A = wire.arrow;
      const alpha = a.length / A.stride > 300 ? 0.18 : a.length / A.stride > 60 ? 0.35 : 0.6;
      ctx.strokeStyle = `rgba(30, 30, 30, ${alpha})`;
      ctx.fillStyle = `rgba(30, 30, 30, ${alpha + 0.1})`;
      ctx.lineWidth = 1;
      // every line in one path and every head in another: two strokes, not two per arrow
      const lines = new Path2D();
      const heads = new Path2D();
      for (let k = 0; k < a.length; k += A.stride) {
        const fr = this.shownRow(a[k + A.fromRow], shown);
        const tr = this.shownRow(a[k + A.toRow], shown);
        if (fr < 0 || tr < 0 || fr === tr) continue;
        const x0 = this.xAt(a[k + A.send]);
        const x1 = this.xAt(a[k + A.receive]);
        const y0 = y.get(fr) + ROW_H / 2;
        const y1 = y.get(tr) + ROW_H / 2;
        if (Math.max(y0, y1) < RULER_H || Math.min(y0, y1) > H) continue;
        lines.moveTo(x0, y0);
        lines.lineTo(x1, y1);
        const ang = Math.atan2(y1 - y0, x1 - x0);
        heads.moveTo(x1, y1);
        heads.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4));
        heads.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4));
        heads.closePath();
        draw.arrows.push({fromRow: fr, toRow: tr, fromCore: this.meta.rows[a[k + A.fromRow]].core,
          toCore: this.meta.rows[a[k + A.toRow]].core, send: a[k + A.send], receive: a[k + A.receive]});
      }
      ctx.stroke(lines);
      ctx.fill(heads);
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
    this.drawLabels(onScreen, y);
    this.drawRuler();
    draw.sampled = d ? d.sampled : false;
    draw.ticks = this.ticks;
    draw.cssWidth = this.cssWidth;
    this.lastDraw = draw;
    if (this.on.drawn) this.on.drawn(draw);
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
      for (let j = 0; j < wire.top && c[k + C.label(j)] >= 0; j++) {
        const hh = v[x] * h * c[k + C.share(j)] / total;
        ctx.fillStyle = paint(ctx, this.meta, c[k + C.label(j)], row);
        drawnLabels(draw, c[k + C.label(j)]);
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

  drawLabels(onScreen, y) {
    const ctx = this.ctx;
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(0, RULER_H, LABEL_W, this.cssHeight - RULER_H);
    for (const id of onScreen) {
      const r = this.meta.rows[id];
      const top = y.get(id);
      ctx.fillStyle = r.kind === 'core' || r.kind === 'board' || r.kind === 'trace' ? '#111' : '#555';
      ctx.font = r.kind === 'core' || r.kind === 'board' || r.kind === 'trace' ? '600 12px system-ui, sans-serif' : '12px system-ui, sans-serif';
      const x = 6 + r.level * INDENT;
      if (r.group) ctx.fillText(this.collapsed.has(id) ? '▸' : '▾', x, top + ROW_H / 2);
      ctx.fillText(r.name, x + 12, top + ROW_H / 2, LABEL_W - x - 16);
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
    const span = this.to - this.from;
    const raw = span / (this.width / 110);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
    ctx.fillStyle = '#444';
    ctx.font = '11px system-ui, sans-serif';
    this.ticks = [];
    for (let t = Math.ceil(this.from / step) * step; t <= this.to; t += step) {
      const x = this.xAt(t);
      ctx.fillRect(x, RULER_H - 7, 1, 7);
      const text = formatTick(t, step);
      // a label that would run past the right edge ends at its tick instead
      const tw = ctx.measureText(text).width;
      const left = x + 3 + tw > this.cssWidth - 2 ? x - 3 - tw : x + 3;
      ctx.fillText(text, left, RULER_H / 2 - 1);
      this.ticks.push({time: t, text, left, right: left + tw});
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
    if (mark) {
      html = `<b>${esc(mark.label)}</b> <span class="muted">${esc(r.name)}</span><br>at ${formatTime(mark.time)}`
        + (mark.sync ? '<br>a sync handshake event' : '');
    } else if (hit) {
      html = `<b>${esc(hit.label)}</b> <span class="muted">${esc(r.name)}${r.core && r.core !== r.name ? ' · ' + esc(r.core) : ''}</span><br>`
        + `${formatTime(hit.start)} → ${formatTime(hit.end)}<br>duration ${formatTime(hit.end - hit.start)}`
        + (r.kind === 'task' ? '' : ` · ${this.meta.states[hit.state]}`);
    } else {
      const a = this.data && this.data.byRow.get(row);
      if (a && a.cols) {
        const d = this.data;
        const col = Math.floor((this.timeAt(x) - d.from) / ((d.to - d.from) / d.width));
        const c = a.cols;
        const C = wire.col;
        for (let k = 0; k < c.length; k += C.stride) {
          if (c[k + C.x] <= col && col < c[k + C.x] + c[k + C.n]) {
            const parts = [];
            for (let j = 0; j < wire.top && c[k + C.label(j)] >= 0; j++) {
              parts.push(`<span class="swatch" style="background:${this.meta.colors[c[k + C.label(j)]]}"></span>`
                + `${esc(this.meta.labels[c[k + C.label(j)]])} ${(c[k + C.share(j)] / 10).toFixed(1)} %`);
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
