// Where the app's answers come from: the server's JSON API (`hetrace view`), or the data
// embedded in a report (`hetrace report`: a <script type="application/json" id="hetrace-data">),
// answered here in the same shape so that the timeline and panels draw them unchanged.

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
    const res = await fetch(url);
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
    case 'api/find': return find(q.get('q'), n('after'), q.get('dir') !== 'prev');
    case 'api/durations': {
      const d = data.durations && data.durations[q.get('name')];
      if (!d) throw new Error(`this report holds the durations of ${reportDurations.join(', ') || 'nothing'}, not of ${q.get('name')}`);
      return d;
    }
    default: throw new Error('not in this report: ' + path);
  }
}

// ---- the embedded timeline: per row its intervals ('rects', sorted by start, with the running
// maximum of their ends), or its columns over the whole span at report.width ('cols', the
// server's answer for the fitted view at that width); a group row, the ids of its cores ('members')

const TOP = 4;
const rows = data ? data.rows || data.view.rows : [];
if (data) data.members.forEach((m, id) => { if (m.length) rows[id].members = m; });
function withMaxEnd(r) {
  if (r.rects) {
    r.maxEnd = new Float64Array(r.rects.length / 4);
    let m = -Infinity;
    for (let i = 0; i < r.maxEnd.length; i++) r.maxEnd[i] = m = Math.max(m, r.rects[4 * i + 1]);
  }
  return r;
}
rows.forEach(withMaxEnd);
// a large board's report: every interval in a few windows around the longest outliers
const windows = data && data.windows ? data.windows : [];
for (const w of windows) w.rows = w.rows.map(r => r && withMaxEnd({rects: r}));

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
  let lo = 0, hi = r.maxEnd.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (r.rects[4 * mid] >= t) hi = mid; else lo = mid + 1; }
  return lo;
}

/** Per pixel column: busy ns, intervals starting, the TOP labels with their ns (as the server's Columns). */
class Cols {
  constructor(width) {
    this.width = width;
    this.busy = new Float64Array(width);
    this.count = new Int32Array(width);
    this.top = new Int32Array(width * TOP).fill(-1);
    this.topTime = new Float64Array(width * TOP);
  }
  addTop(x, label, t) {
    const at = x * TOP;
    let min = -1;
    for (let j = at; j < at + TOP; j++) {
      if (this.top[j] === label) { this.topTime[j] += t; return; }
      if (this.top[j] < 0) { this.top[j] = label; this.topTime[j] = t; return; }
      if (min < 0 || this.topTime[j] < this.topTime[min]) min = j;
    }
    if (t > this.topTime[min]) { this.top[min] = label; this.topTime[min] = t; }
  }
  /** One interval [s, e) (busy unless idle). */
  add(s, e, label, busy, from, nsPerPx) {
    const x0 = (s - from) / nsPerPx, x1 = (e - from) / nsPerPx;
    const first = Math.max(0, Math.floor(x0));
    const last = Math.min(this.width - 1, Math.max(Math.floor(x0), Math.ceil(x1) - 1));
    if (first > last) return;
    if (x0 >= 0) this.count[first]++;
    if (!busy) return;
    for (let x = first; x <= last; x++) {
      const t = (Math.min(x1, x + 1) - Math.max(x0, x)) * nsPerPx;
      if (t > 0) { this.busy[x] += t; this.addTop(x, label, t); }
    }
  }
  /** The embedded columns of row r (runs over the whole span at report.width) resampled to these. */
  addColumns(c, from, nsPerPx, scale) {
    const colNs = data.meta.span / data.report.width;
    for (let k = 0; k < c.length; k += 12) {
      for (let i = 0; i < c[k + 1]; i++) {
        const s = (c[k] + i) * colNs;
        const x0 = (s - from) / nsPerPx, x1 = (s + colNs - from) / nsPerPx;
        const first = Math.max(0, Math.floor(x0));
        const last = Math.min(this.width - 1, Math.ceil(x1) - 1);
        if (first > last) continue;
        if (x0 >= 0) this.count[first] += c[k + 3];
        for (let x = first; x <= last; x++) {
          const f = Math.min(x1, x + 1) - Math.max(x0, x); // pixels of this column
          if (f <= 0) continue;
          const ns = f * nsPerPx * scale;
          this.busy[x] += ns * c[k + 2] / 1000;
          for (let j = 0; j < TOP; j++) if (c[k + 4 + 2 * j] >= 0) this.addTop(x, c[k + 4 + 2 * j], ns * c[k + 5 + 2 * j] / 1000);
        }
      }
    }
  }
  /** As the server sends them: runs of equal columns [x, n, busy‰, starts, label, ‰ × TOP]. */
  runs(full) {
    const pm = v => Math.min(1000, Math.round(v * 1000 / full));
    const col = x => {
      const out = [pm(this.busy[x]), this.count[x]];
      for (let j = x * TOP; j < x * TOP + TOP; j++) out.push(this.top[j], this.top[j] < 0 ? 0 : pm(this.topTime[j]));
      return out;
    };
    const out = [];
    let x = 0;
    while (x < this.width) {
      const v = col(x);
      if (v[0] === 0 && v[1] === 0) { x++; continue; }
      let n = 1;
      while (x + n < this.width && col(x + n).every((a, i) => a === v[i])) n++;
      out.push(x, n, ...v);
      x += n;
    }
    return out;
  }
}

function view(from, to, width, ids) {
  const nsPerPx = (to - from) / width;
  const out = {from, to, width, rows: []};
  let coarse = false;
  for (const id of ids) {
    const r = rows[id];
    if (!r) throw new Error('no row ' + id);
    if (r.members) {
      // a group: its cores' intervals when the report has them all here, else its own columns
      const cols = new Cols(width);
      const exact = r.members.every(m => source(m, from, to).rects);
      if (r.cols && !exact) {
        cols.addColumns(r.cols, from, nsPerPx, r.members.length);
        coarse = true;
      } else {
        for (const m of r.members) addRects(cols, source(m, from, to), from, to, nsPerPx);
      }
      out.rows.push({id, cols: cols.runs(nsPerPx * r.members.length)});
    } else if (source(id, from, to).rects) {
      const r = source(id, from, to);
      const lo = firstEndingAfter(r, from), hi = firstStartingFrom(r, to);
      if (hi - lo <= width / 2) {
        const rects = [];
        for (let i = lo; i < hi; i++) rects.push(r.rects[4 * i], r.rects[4 * i + 1], r.rects[4 * i + 2], r.rects[4 * i + 3]);
        out.rows.push({id, rects});
      } else {
        const cols = new Cols(width);
        addRects(cols, r, from, to, nsPerPx);
        out.rows.push({id, cols: cols.runs(nsPerPx)});
      }
    } else if (r.cols) {
      const cols = new Cols(width);
      cols.addColumns(r.cols, from, nsPerPx, 1);
      coarse = true;
      out.rows.push({id, cols: cols.runs(nsPerPx)});
    } else {
      out.rows.push({id, rects: []});
    }
  }
  // zoomed deeper than the embedded columns: the app says so
  const colNs = data.report.width ? data.meta.span / data.report.width : 0;
  if (coarse && nsPerPx < colNs) out.finest = colNs;
  // messages: those sent before the end whose receive is after the start, one in every few above 2,000
  const a = data.arrows;
  const picked = [];
  for (let k = 0; k < a.length && a[k] < to; k += 5) if (a[k + 2] >= from) picked.push(k);
  const stride = Math.max(1, Math.ceil(picked.length / 2000));
  out.arrowsTotal = picked.length;
  out.sampled = stride > 1;
  out.arrows = [];
  for (let i = 0; i < picked.length; i += stride) out.arrows.push(...a.slice(picked[i], picked[i] + 5));
  return out;
}

function addRects(cols, r, from, to, nsPerPx) {
  if (!r.rects) return;
  const lo = firstEndingAfter(r, from), hi = firstStartingFrom(r, to);
  const idle = data.meta.states.indexOf('idle');
  for (let i = lo; i < hi; i++) cols.add(r.rects[4 * i], r.rects[4 * i + 1], r.rects[4 * i + 2], r.rects[4 * i + 3] !== idle, from, nsPerPx);
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
  if (r && r.rects) {
    const lo = firstEndingAfter(r, from), hi = firstStartingFrom(r, to + 1);
    for (let i = lo; i < hi && out.intervals.length < 200; i++) {
      const [s, e, label, state] = r.rects.slice(4 * i, 4 * i + 4);
      if (e < from) continue;
      out.intervals.push({start: s, end: e, name: meta.labels[label], color: meta.colors[label],
        what: meta.rows[id].kind === 'task' ? meta.states[state] : meta.rows[id].kind});
    }
  }
  const a = data.arrows;
  const name = k => meta.rows[a[k]].name;
  for (let k = 0; k < a.length && a[k] <= to && out.messages.length < 200; k += 5) {
    if ((a[k + 1] === id && a[k] >= from) || (a[k + 3] === id && a[k + 2] >= from && a[k + 2] <= to)) {
      out.messages.push({send: a[k], receive: a[k + 2], from: name(k + 1), to: name(k + 3), queue: '-', id: a[k + 4]});
    }
  }
  return out;
}

function find(q, after, next) {
  const needle = (q || '').toLowerCase();
  const match = data.meta.labels.map(l => l.toLowerCase().includes(needle));
  let best = null;
  let matches = 0;
  rows.forEach((r, id) => {
    if (!r.rects) return;
    for (let i = 0; i < r.rects.length; i += 4) {
      if (!match[r.rects[i + 2]]) continue;
      matches++;
      const s = r.rects[i];
      if (next ? s > after && (!best || s < best.start) : s < after && (!best || s > best.start)) {
        best = {row: id, start: s, end: r.rects[i + 1], name: data.meta.labels[r.rects[i + 2]]};
      }
    }
  });
  return best ? {matches, ...best} : {matches};
}
