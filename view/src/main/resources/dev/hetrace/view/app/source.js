// Where the app's answers come from: the server's JSON API (`hetrace view`), or the data
// embedded in a report (`hetrace report`: a <script type="application/json" id="hetrace-data">),
// answered here in the same shape so that the timeline and panels draw them unchanged.

import {W, binaryViews, configure, readBinaryView} from './wire.js';

const blob = document.getElementById('hetrace-data');
const data = blob ? JSON.parse(blob.textContent) : null;

/** Whether the answers come from a report's embedded data (no server). */
export const embedded = data !== null;

/** What the report holds, in a sentence (null when served). */
export const reportNote = data && data.report.note;

/** The names whose durations a report holds (empty when served). */
export const reportDurations = data && data.durations ? Object.keys(data.durations) : [];

/** The answer to an API request such as 'api/view?from=0&to=10&width=800&rows=1,2'. */
export async function get(url) {
  if (!data) {
    // a view's arrays come as binary (typed arrays, not parsed); its errors, as every other answer, as JSON
    const binary = binaryViews && url.startsWith('api/view?');
    const res = await fetch(binary ? url + '&format=binary' : url);
    if (binary && res.ok) return readBinaryView(await res.arrayBuffer());
    const body = await res.json();
    if (!res.ok) throw new Error(body.error || res.statusText);
    return body;
  }
  const [path, query] = url.split('?');
  const q = new URLSearchParams(query || '');
  const n = name => Number(q.get(name));
  switch (path) {
    case 'api/meta': return data.meta;
    case 'api/diagnosis': return data.diagnosis;
    case 'api/stats': return data.stats;
    case 'api/view': return view(n('from'), n('to'), n('width'), (q.get('rows') || '').split(',').filter(s => s !== '').map(Number));
    case 'api/events': return events(n('row'), n('from'), n('to'));
    case 'api/find': return find(q.get('q'), n('after'), q.get('dir') !== 'prev', q.has('index') ? n('index') : null);
    case 'api/names': return {durations: reportDurations};
    case 'api/mark': return {name: q.get('name'), time: n('time'), row: rowName(n('row')), core: data.meta.rows[n('row')].core,
      events: null};
    case 'api/durations': {
      const d = data.durations && data.durations[q.get('name')];
      if (!d) throw new Error(`this report holds the durations of ${reportDurations.join(', ') || 'nothing'}, not of ${q.get('name')}`);
      return durations(d);
    }
    default: throw new Error('not in this report: ' + path);
  }
}

// ---- the embedded timeline. Columns are the server's: a report embeds its /api/view answer for
// the whole span at report.width (`view`), which the page only resamples to the pixels asked; the
// aggregation of intervals into columns is the server's alone (ViewQuery, Columns). Per row that
// answer's intervals ('rects') or columns ('cols'); a small board's report has every interval of
// every row too (`rows`); a group row, the ids of its cores ('members'). The arrays' layout is
// the wire schema (wire.js; docs/view.md, "Wire schema").

if (data) configure(data.meta.wire);
// each row's columns say where they start and how wide each is (ns), to be resampled
const wholeNs = data ? data.meta.span / data.report.width : 0;
const rows = data ? data.view.rows.map((v, id) => ({cols: v.cols, values: v.values, samples: v.samples, colFrom: 0, colNs: wholeNs,
  rects: (data.rows && data.rows[id].rects) || v.rects})) : [];
if (data) data.members.forEach((m, id) => { if (m.length) rows[id].members = m; });
function withMaxEnd(r) {
  if (r.rects) {
    const R = W.rect;
    r.maxEnd = new Float64Array(r.rects.length / R.stride);
    let m = -Infinity;
    for (let i = 0; i < r.maxEnd.length; i++) r.maxEnd[i] = m = Math.max(m, r.rects[R.stride * i + R.end]);
  }
  return r;
}
rows.forEach(withMaxEnd);
// a large board's report: every interval in a few windows around the longest outliers
const windows = data && data.windows ? data.windows : [];
// and the server's answer for each window at its own width, for its group rows and its dense rows
for (const w of windows) {
  const cols = new Map((w.view ? w.view.rows : []).map(v => [v.id, v.cols]));
  const colNs = w.view ? (w.view.to - w.view.from) / w.view.width : 0;
  w.rows = w.rows.map((r, id) => (r || cols.get(id))
    && withMaxEnd({rects: r || null, cols: cols.get(id), colFrom: w.view ? w.view.from : 0, colNs}));
}

/** Row id's intervals for a view of [from, to]: a window's when one covers it, else the row's own. */
function source(id, from, to) {
  const w = windows.find(w => w.from <= from && to <= w.to);
  return (w && w.rows[id]) || rows[id];
}

function firstEndingAfter(r, t) {
  let lo = 0, hi = r.maxEnd.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (r.maxEnd[mid] > t) hi = mid; else lo = mid + 1; }
  return lo;
}
function firstStartingFrom(r, t) {
  const R = W.rect;
  let lo = 0, hi = r.maxEnd.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (r.rects[R.stride * mid + R.start] >= t) hi = mid; else lo = mid + 1; }
  return lo;
}

/**
 * The embedded columns of a row (the server's, runs over the whole span at report.width) resampled
 * to the pixel columns of a view: each embedded column's busy time, starts and labels spread over
 * the pixels it covers, in proportion; then sent as the server sends columns (wire.js).
 */
class Resampled {
  constructor(width) {
    this.width = width;
    this.busy = new Float64Array(width);
    this.count = new Int32Array(width);
    this.top = new Int32Array(width * W.top).fill(-1);
    this.topTime = new Float64Array(width * W.top);
  }
  addTop(x, label, t) {
    const at = x * W.top;
    let min = -1;
    for (let j = at; j < at + W.top; j++) {
      if (this.top[j] === label) { this.topTime[j] += t; return; }
      if (this.top[j] < 0) { this.top[j] = label; this.topTime[j] = t; return; }
      if (min < 0 || this.topTime[j] < this.topTime[min]) min = j;
    }
    if (t > this.topTime[min]) { this.top[min] = label; this.topTime[min] = t; }
  }
  /**
   * Embedded columns c, each colNs wide from colFrom, for a view from `from` at nsPerPx; scale: the
   * cores of a group.
   */
  add(c, colFrom, colNs, from, nsPerPx, scale) {
    const C = W.col;
    for (let k = 0; k < c.length; k += C.stride) {
      for (let i = 0; i < c[k + C.n]; i++) {
        const s = colFrom + (c[k + C.x] + i) * colNs;
        const x0 = (s - from) / nsPerPx, x1 = (s + colNs - from) / nsPerPx;
        const first = Math.max(0, Math.floor(x0));
        const last = Math.min(this.width - 1, Math.ceil(x1) - 1);
        if (first > last) continue;
        if (x0 >= 0) this.count[first] += c[k + C.starts];
        for (let x = first; x <= last; x++) {
          const f = Math.min(x1, x + 1) - Math.max(x0, x); // pixels of this column
          if (f <= 0) continue;
          const ns = f * nsPerPx * scale;
          this.busy[x] += ns * c[k + C.busy] / 1000;
          for (let j = 0; j < W.top; j++) {
            if (c[k + C.labelAt[j]] >= 0) this.addTop(x, c[k + C.labelAt[j]], ns * c[k + C.shareAt[j]] / 1000);
          }
        }
      }
    }
  }
  /** As the server sends them: runs of equal columns (wire.js, W.col). */
  runs(full) {
    const pm = v => Math.min(1000, Math.round(v * 1000 / full));
    const C = W.col;
    const col = x => {
      const v = new Array(C.stride).fill(0);
      v[C.busy] = pm(this.busy[x]);
      v[C.starts] = this.count[x];
      for (let j = 0; j < W.top; j++) {
        const t = this.top[x * W.top + j];
        v[C.labelAt[j]] = t;
        v[C.shareAt[j]] = t < 0 ? 0 : pm(this.topTime[x * W.top + j]);
      }
      return v;
    };
    const out = [];
    let x = 0;
    while (x < this.width) {
      const v = col(x);
      if (v[C.busy] === 0 && v[C.starts] === 0) { x++; continue; }
      let n = 1;
      while (x + n < this.width && col(x + n).every((a, i) => i === C.x || i === C.n || a === v[i])) n++;
      v[C.x] = x;
      v[C.n] = n;
      out.push(...v);
      x += n;
    }
    return out;
  }
}

function view(from, to, width, ids) {
  const nsPerPx = (to - from) / width;
  const out = {from, to, width, rows: []};
  const R = W.rect;
  let finest = 0;
  const resampled = (r, scale) => {
    const cols = new Resampled(width);
    cols.add(r.cols, r.colFrom, r.colNs, from, nsPerPx, scale);
    finest = Math.max(finest, r.colNs);
    return cols.runs(nsPerPx * scale);
  };
  for (const id of ids) {
    const r = rows[id];
    if (!r) throw new Error('no row ' + id);
    if (data.meta.rows[id].kind === 'counter' && rows[id].samples) {
      out.rows.push({id, samples: counterSamples(id, from, to, width)});
      continue;
    }
    if (data.meta.rows[id].kind === 'counter') {
      out.rows.push({id, values: counterValues(id, from, to, width)});
      continue;
    }
    const s = source(id, from, to);
    const inWindow = s !== r;
    const c = s.cols ? s : r; // a window's columns, else the whole span's
    if (r.members) {
      out.rows.push({id, cols: c.cols ? resampled(c, r.members.length) : []});
      continue;
    }
    const lo = s.rects ? firstEndingAfter(s, from) : 0;
    const hi = s.rects ? firstStartingFrom(s, to) : 0;
    if (s.rects && (hi - lo <= width / 2 || !c.cols || (inWindow && !s.cols))) {
      // few enough to tell apart, or all there is (a window's every interval of a row it has no columns of)
      out.rows.push({id, rects: s.rects.slice(R.stride * lo, R.stride * hi)});
    } else if (c.cols) {
      out.rows.push({id, cols: resampled(c, 1)});
    } else {
      out.rows.push({id, rects: []});
    }
  }
  // zoomed deeper than the embedded columns: the app says so
  if (finest > 0 && nsPerPx < finest) out.finest = finest;
  // messages: those sent before the end whose receive is after the start, one in every few above 2,000
  const a = data.arrows;
  const A = W.arrow;
  const picked = [];
  for (let k = 0; k < a.length && a[k + A.send] < to; k += A.stride) if (a[k + A.receive] >= from) picked.push(k);
  const stride = Math.max(1, Math.ceil(picked.length / 2000));
  out.arrowsTotal = picked.length;
  out.sampled = stride > 1;
  out.arrows = [];
  for (let i = 0; i < picked.length; i += stride) out.arrows.push(...a.slice(picked[i], picked[i] + A.stride));
  return out;
}

/**
 * A counter row's values (wire.value records) for a view, as the server computes them (Counters.java)
 * from the intervals the report holds there (a CPU's load from its core's runs, an interrupt line's
 * rate from its handlers), else resampled from the embedded values over the whole span.
 */
function counterValues(id, from, to, width) {
  const meta = data.meta.rows[id];
  const load = meta.counter === 'load';
  const average = meta.counter !== 'rate'; // a load or a level: averaged over time; a rate: a count
  const held = source(load ? meta.parent : id, from, to);
  const at = x => from + Math.floor((to - from) * x / width);
  const nsPerPx = (to - from) / width;
  const v = new Float64Array(width);
  if (held && held.rects && meta.counter !== 'level') {
    const R = W.rect;
    for (let i = firstEndingAfter(held, from), hi = firstStartingFrom(held, to); i < hi; i++) {
      const s = held.rects[R.stride * i + R.start], e = held.rects[R.stride * i + R.end];
      if (!load) {
        if (s >= from && s < to) v[Math.min(width - 1, Math.floor((s - from) / nsPerPx))]++;
        continue;
      }
      for (let x = Math.max(0, Math.floor((s - from) / nsPerPx)); x < width && at(x) < e; x++) {
        v[x] += Math.max(0, Math.min(e, at(x + 1)) - Math.max(s, at(x)));
      }
    }
    if (load) for (let x = 0; x < width; x++) v[x] = Math.min(1000, Math.round(v[x] * 1000 / Math.max(1, at(x + 1) - at(x))));
  } else if (rows[id].values) {
    const V = W.value;
    const c = rows[id].values;
    for (let k = 0; k < c.length; k += V.stride) {
      const s = c[k + V.x] * wholeNs, e = (c[k + V.x] + c[k + V.n]) * wholeNs;
      for (let x = Math.max(0, Math.floor((s - from) / nsPerPx)); x < width && at(x) < e; x++) {
        const overlap = Math.max(0, Math.min(e, at(x + 1)) - Math.max(s, at(x)));
        // a load or a level is averaged over time; a rate is a count: split in proportion
        v[x] += c[k + V.value] * overlap / (average ? Math.max(1, at(x + 1) - at(x)) : wholeNs);
      }
    }
  }
  const out = [];
  for (let x = 0; x < width;) {
    let n = 1;
    while (x + n < width && v[x + n] === v[x]) n++;
    if (v[x] !== 0) {
      const rec = new Array(W.value.stride).fill(0);
      rec[W.value.x] = x;
      rec[W.value.n] = n;
      rec[W.value.value] = v[x];
      out.push(...rec);
    }
    x += n;
  }
  return out;
}

/**
 * A counter series' columns (wire.sample records) for a view, resampled from the embedded ones over
 * the whole span: per column, the least and greatest of the embedded columns it overlaps, their
 * average weighted by the overlap; lost events, a count, split in proportion.
 */
function counterSamples(id, from, to, width) {
  const S = W.sample;
  const lost = data.meta.rows[id].counter === 'lost';
  const c = rows[id].samples;
  const at = x => from + Math.floor((to - from) * x / width);
  const nsPerPx = (to - from) / width;
  const min = new Float64Array(width).fill(Infinity);
  const max = new Float64Array(width).fill(-Infinity);
  const sum = new Float64Array(width);
  const weight = new Float64Array(width);
  for (let k = 0; k < c.length; k += S.stride) {
    const s = c[k + S.x] * wholeNs, e = (c[k + S.x] + c[k + S.n]) * wholeNs;
    for (let x = Math.max(0, Math.floor((s - from) / nsPerPx)); x < width && at(x) < e; x++) {
      const overlap = Math.max(0, Math.min(e, at(x + 1)) - Math.max(s, at(x)));
      if (overlap <= 0) continue;
      if (lost) {
        sum[x] += c[k + S.avg] * overlap / wholeNs;
        weight[x] = 1;
        continue;
      }
      min[x] = Math.min(min[x], c[k + S.min]);
      max[x] = Math.max(max[x], c[k + S.max]);
      sum[x] += c[k + S.avg] * overlap;
      weight[x] += overlap;
    }
  }
  const out = [];
  for (let x = 0; x < width; x++) {
    if (weight[x] === 0) continue;
    const rec = new Array(S.stride).fill(0);
    rec[S.x] = x;
    rec[S.n] = 1;
    rec[S.min] = lost ? sum[x] : min[x];
    rec[S.max] = lost ? sum[x] : max[x];
    // an average of values between min and max is too, whatever the rounding
    rec[S.avg] = lost ? sum[x] : Math.min(max[x], Math.max(min[x], sum[x] / weight[x]));
    out.push(...rec);
  }
  return out;
}

const KINDS = {calls: 'call', irq: 'interrupt', core: 'run'};

/** A report's durations (in columns: Panels.durations) as the server sends them. */
function durations(d) {
  if (d.intervals) return d;
  const c = d.columns;
  const intervals = c.row.map((row, k) => {
    const r = data.meta.rows[row];
    const i = {row, core: r.core, kind: KINDS[r.kind] ?? r.kind, start: c.start[k], duration: c.duration[k],
      iteration: c.iteration[k]};
    if (c.self[k] >= 0) i.self = c.self[k];
    return i;
  });
  return {name: d.name, total: d.total, shown: d.shown, intervals};
}

function rowName(id) {
  const names = [];
  for (let p = id; p > 0; p = data.meta.rows[p].parent) names.unshift(data.meta.rows[p].name);
  return names.join(' / ');
}

function events(id, from, to) {
  const r = source(id, from, to);
  const meta = data.meta;
  const out = {row: id, name: rowName(id), from, to, intervals: [], messages: []};
  const R = W.rect;
  if (r && r.rects) {
    const lo = firstEndingAfter(r, from), hi = firstStartingFrom(r, to + 1);
    for (let i = lo; i < hi && out.intervals.length < 200; i++) {
      const k = R.stride * i;
      const s = r.rects[k + R.start], e = r.rects[k + R.end], label = r.rects[k + R.label], state = r.rects[k + R.state];
      if (e < from) continue;
      out.intervals.push({start: s, end: e, name: meta.labels[label], color: meta.colors[label],
        what: meta.rows[id].kind === 'task' ? meta.states[state] : meta.rows[id].kind});
    }
  }
  const a = data.arrows;
  const A = W.arrow;
  const name = k => meta.rows[a[k]].name;
  for (let k = 0; k < a.length && a[k + A.send] <= to && out.messages.length < 200; k += A.stride) {
    if ((a[k + A.fromRow] === id && a[k + A.send] >= from)
        || (a[k + A.toRow] === id && a[k + A.receive] >= from && a[k + A.receive] <= to)) {
      out.messages.push({send: a[k + A.send], receive: a[k + A.receive], from: name(k + A.fromRow), to: name(k + A.toRow),
        queue: '-', id: a[k + A.message]});
    }
  }
  return out;
}

// in the order of (start, index), index counting the embedded intervals row after row, as the server's
function find(q, after, next, index) {
  const needle = (q || '').toLowerCase();
  const match = data.meta.labels.map(l => l.toLowerCase().includes(needle));
  const at = index ?? (next ? Infinity : -1);
  const all = [];
  const R = W.rect;
  let base = 0;
  rows.forEach((r, id) => {
    if (!r.rects) return;
    for (let i = 0; i < r.rects.length; i += R.stride) {
      if (match[r.rects[i + R.label]]) all.push({row: id, start: r.rects[i + R.start], end: r.rects[i + R.end],
        name: data.meta.labels[r.rects[i + R.label]], index: base + i / R.stride});
    }
    base += r.rects.length / R.stride;
  });
  all.sort((a, b) => a.start - b.start || a.index - b.index);
  const later = o => o.start > after || (o.start === after && o.index > at);
  const earlier = o => o.start < after || (o.start === after && o.index < at);
  const k = next ? all.findIndex(later) : all.findLastIndex(earlier);
  return k < 0 ? {matches: all.length} : {matches: all.length, rank: k + 1, ...all[k]};
}
