// hetrace monitor's live page: per-thread graphs of metrics, fed by server-sent events.
// Plain ES module, nothing from the network. window.__monitor is the hook the browser tests read.

const PALETTE = ['#1f77b4', '#d62728', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#bcbd22',
  '#2ca02c', '#7f7f7f', '#393b79', '#ad494a', '#637939', '#843c39', '#7b4173', '#3182bd'];

// distinct colours for the first threads, then hues a golden angle apart (a JVM has 20 threads)
function color(i) {
  return i < PALETTE.length ? PALETTE[i] : `hsl(${Math.round(i * 137.508) % 360}, 65%, 42%)`;
}

const state = {
  config: null,
  ticks: [],          // {i, t, threads: [{tid, name, cpu, active, counters, metrics}], ended: [tid]}
  seen: new Set(),    // tick indices received
  threads: new Map(), // tid -> {tid, name, cpu, active, ended, color}
  graphs: [],
  paused: false,
  ended: null,
  windowSeconds: 30,
};

const $ = (id) => document.getElementById(id);

function addTick(tick) {
  if (state.seen.has(tick.i)) return;
  state.seen.add(tick.i);
  state.ticks.push(tick);
  if (state.ticks.length > 1 && state.ticks[state.ticks.length - 2].i > tick.i) {
    state.ticks.sort((a, b) => a.i - b.i);
  }
  if (state.ticks.length > 3600) state.ticks.shift();
  const latest = state.ticks[state.ticks.length - 1] === tick;
  for (const t of tick.threads) {
    let th = state.threads.get(t.tid);
    if (!th) {
      th = { tid: t.tid, color: color(state.threads.size) };
      state.threads.set(t.tid, th);
    }
    if (latest) Object.assign(th, { name: t.name, cpu: t.cpu, active: t.active, ended: false });
  }
  for (const tid of tick.ended || []) {
    const th = state.threads.get(tid);
    if (th) { th.ended = true; th.active = false; }
  }
}

function refresh() {
  if (state.paused) return;
  drawThreads();
  for (const g of state.graphs) draw(g);
}

function drawThreads() {
  const ul = $('threads');
  ul.replaceChildren();
  const list = [...state.threads.values()].sort((a, b) => (a.ended - b.ended) || (b.active - a.active) || (a.tid - b.tid));
  for (const th of list) {
    const li = document.createElement('li');
    li.className = th.ended ? 'ended' : th.active ? 'active' : 'inactive';
    li.dataset.tid = th.tid;
    li.title = th.active ? 'ran in the last interval' : th.ended ? 'ended' : 'did not run in the last interval';
    const dot = document.createElement('span'); dot.className = 'dot';
    const sw = document.createElement('span'); sw.className = 'swatch'; sw.style.background = th.color;
    const name = document.createElement('span'); name.className = 'name'; name.textContent = `${th.name} ${th.tid}`;
    const cpu = document.createElement('span'); cpu.className = 'cpu'; cpu.textContent = th.cpu >= 0 ? `cpu ${th.cpu}` : '';
    li.append(dot, sw, name, cpu);
    ul.append(li);
  }
}

// The series of a metric over the window: per thread, [t, value] with null for gaps.
function series(metric) {
  const last = state.ticks.length ? state.ticks[state.ticks.length - 1].t : 0;
  const from = Math.max(0, last - state.windowSeconds); // the first window fills from the left
  const out = new Map();
  for (const tick of state.ticks) {
    if (tick.t < from) continue;
    for (const t of tick.threads) {
      if (!out.has(t.tid)) out.set(t.tid, []);
      const v = t.metrics[metric];
      out.get(t.tid).push([tick.t, v === undefined ? null : v]);
    }
  }
  return { from, to: from + state.windowSeconds, series: out };
}

function niceStep(range, n) {
  const raw = range / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const r = raw / mag;
  return (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
}

function fmt(v) {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e6 || a < 1e-3) return v.toExponential(1);
  return String(Math.round(v * 1000) / 1000);
}

function draw(g) {
  const canvas = g.canvas;
  const w = canvas.clientWidth || 800, h = canvas.clientHeight || 260;
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  const { from, to, series: s } = series(g.metric);
  let lo = 0, hi = 0, points = 0;
  for (const pts of s.values()) {
    for (const [, v] of pts) {
      if (v === null) continue;
      points++;
      lo = Math.min(lo, v); hi = Math.max(hi, v);
    }
  }
  if (hi === lo) hi = lo + 1;
  hi += (hi - lo) * 0.08;
  const L = 56, R = 10, T = 18, B = 24;
  const x = (t) => L + (t - from) / (to - from) * (w - L - R);
  const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (h - T - B);
  ctx.font = '11px sans-serif';
  ctx.strokeStyle = '#eee'; ctx.fillStyle = '#666'; ctx.lineWidth = 1;
  const ys = niceStep(hi - lo, 5);
  ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  for (let v = Math.ceil(lo / ys) * ys; v <= hi; v += ys) {
    ctx.beginPath(); ctx.moveTo(L, y(v)); ctx.lineTo(w - R, y(v)); ctx.stroke();
    ctx.fillText(fmt(v), L - 4, y(v));
  }
  const xs = niceStep(to - from, 8);
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  for (let t = Math.ceil(Math.max(0, from) / xs) * xs; t <= to; t += xs) {
    ctx.beginPath(); ctx.moveTo(x(t), T); ctx.lineTo(x(t), h - B); ctx.stroke();
    ctx.fillText(`${fmt(t)} s`, x(t), h - B + 4);
  }
  ctx.strokeStyle = '#999';
  ctx.strokeRect(L, T, w - L - R, h - T - B);
  const m = state.config.metrics.find((m) => m.name === g.metric);
  ctx.textAlign = 'left'; ctx.fillStyle = '#222'; ctx.font = 'bold 12px sans-serif';
  ctx.fillText(`${g.metric}${m ? ' = ' + m.formula : ''}   (per thread)`, L, 2);
  ctx.save();
  ctx.beginPath(); ctx.rect(L, T, w - L - R, h - T - B); ctx.clip();
  for (const [tid, pts] of s) {
    const th = state.threads.get(tid);
    ctx.strokeStyle = th ? th.color : '#000';
    ctx.lineWidth = th && th.active ? 2 : 1.2;
    ctx.beginPath();
    let pen = false;
    for (const [t, v] of pts) {
      if (v === null) { pen = false; continue; }
      if (pen) ctx.lineTo(x(t), y(v)); else ctx.moveTo(x(t), y(v));
      pen = true;
    }
    ctx.stroke();
    if (pts.length === 1 && pts[0][1] !== null) {
      ctx.fillStyle = ctx.strokeStyle;
      ctx.fillRect(x(pts[0][0]) - 2, y(pts[0][1]) - 2, 4, 4);
    }
  }
  ctx.restore();
  legend(ctx, s, w - R - 8, T + 6);
  g.drawn = {
    metric: g.metric, points, from, to, draws: (g.drawn ? g.drawn.draws : 0) + 1,
    last: state.ticks.length ? state.ticks[state.ticks.length - 1].i : -1,
    series: Object.fromEntries([...s].map(([tid, pts]) => [tid, pts.map(([, v]) => v)])),
  };
}

// The threads with the highest values in view, so that a saved PNG says whose line is whose.
function legend(ctx, s, right, top) {
  const peak = [];
  for (const [tid, pts] of s) {
    const vs = pts.map(([, v]) => v).filter((v) => v !== null);
    if (vs.length && Math.max(...vs.map(Math.abs)) > 0) peak.push([tid, Math.max(...vs)]);
  }
  peak.sort((a, b) => b[1] - a[1]);
  const shown = peak.slice(0, 6);
  if (!shown.length) return;
  ctx.font = '11px monospace';
  const label = (tid) => { const th = state.threads.get(tid); return `${th ? th.name : ''} ${tid}`; };
  const width = Math.max(...shown.map(([tid]) => ctx.measureText(label(tid)).width)) + 28;
  const height = shown.length * 14 + (peak.length > shown.length ? 14 : 0) + 6;
  ctx.fillStyle = 'rgba(255,255,255,0.85)';
  ctx.fillRect(right - width, top, width, height);
  ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
  shown.forEach(([tid], k) => {
    const y = top + 10 + k * 14;
    ctx.fillStyle = state.threads.get(tid)?.color || '#000';
    ctx.fillRect(right - width + 4, y - 1, 14, 3);
    ctx.fillStyle = '#222';
    ctx.fillText(label(tid), right - width + 22, y);
  });
  if (peak.length > shown.length) {
    ctx.fillStyle = '#777';
    ctx.fillText(`+${peak.length - shown.length} more`, right - width + 22, top + 10 + shown.length * 14);
  }
}

function addGraph(metric) {
  const node = $('graph-template').content.firstElementChild.cloneNode(true);
  const g = { metric, el: node, canvas: node.querySelector('canvas'), drawn: null };
  const select = node.querySelector('.metric');
  for (const m of state.config.metrics) {
    const o = document.createElement('option');
    o.value = m.name; o.textContent = m.name;
    select.append(o);
  }
  select.value = metric;
  const formula = node.querySelector('.formula');
  const describe = () => {
    const m = state.config.metrics.find((m) => m.name === g.metric);
    formula.textContent = m ? `= ${m.formula}` : '';
  };
  describe();
  select.addEventListener('change', () => { g.metric = select.value; describe(); draw(g); });
  node.querySelector('.png').addEventListener('click', () => download(`${g.metric}.png`, png(g)));
  node.querySelector('.csv').addEventListener('click', () => download(`${g.metric}.csv`,
    'data:text/csv;charset=utf-8,' + encodeURIComponent(graphCsv(g))));
  node.querySelector('.remove').addEventListener('click', () => {
    if (state.graphs.length === 1) return;
    state.graphs.splice(state.graphs.indexOf(g), 1);
    node.remove();
  });
  $('graphs').append(node);
  state.graphs.push(g);
  draw(g);
  return g;
}

function png(g) {
  draw(g);
  return g.canvas.toDataURL('image/png');
}

// One row per tick, one column per thread: the values of the graph's metric, as drawn.
function graphCsv(g) {
  const tids = [...state.threads.keys()];
  const head = ['time_s', ...tids.map((tid) => csvField(`${state.threads.get(tid).name}-${tid}`))];
  const rows = [head.join(',')];
  for (const tick of state.ticks) {
    const by = new Map(tick.threads.map((t) => [t.tid, t.metrics[g.metric]]));
    rows.push([tick.t.toFixed(3), ...tids.map((tid) => { const v = by.get(tid); return v == null ? '' : v; })].join(','));
  }
  return rows.join('\n') + '\n';
}

// Every metric of every thread and tick, as metrics.csv on disk.
function allCsv() {
  const names = state.config.metrics.map((m) => m.name);
  const rows = [['time_s', 'tid', 'thread', 'active', ...names].join(',')];
  for (const tick of state.ticks) {
    for (const t of tick.threads) {
      rows.push([tick.t.toFixed(3), t.tid, csvField(t.name), t.active,
        ...names.map((n) => t.metrics[n] == null ? '' : t.metrics[n])].join(','));
    }
  }
  return rows.join('\n') + '\n';
}

function csvField(s) {
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function download(name, url) {
  const a = document.createElement('a');
  a.href = url; a.download = name;
  document.body.append(a); a.click(); a.remove();
}

function setStatus() {
  const s = $('status');
  if (state.ended) { s.className = 'ended'; s.textContent = state.ended; }
  else if (state.paused) { s.className = 'paused'; s.textContent = 'paused'; }
  else { s.className = 'live'; s.textContent = `live, every ${state.config.interval_ms} ms`; }
}

function notice(text) {
  const d = document.createElement('div');
  d.textContent = text;
  $('notices').append(d);
}

async function main() {
  state.config = await (await fetch('/api/config')).json();
  $('workload').textContent = state.config.workload;
  $('workload').title = `saved in ${state.config.output}`;
  setStatus();
  const stream = new EventSource('/api/stream');
  stream.addEventListener('batch', (e) => { addTick(JSON.parse(e.data)); refresh(); });
  stream.addEventListener('notice', (e) => notice(e.data));
  stream.addEventListener('end', (e) => { state.ended = e.data; setStatus(); stream.close(); });
  for (const tick of await (await fetch('/api/history')).json()) addTick(tick);
  addGraph(state.config.metrics[0].name);
  refresh();
  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    $('pause').textContent = state.paused ? 'resume' : 'pause';
    setStatus();
    refresh();
  });
  $('add').addEventListener('click', () => {
    const used = new Set(state.graphs.map((g) => g.metric));
    const next = state.config.metrics.find((m) => !used.has(m.name)) || state.config.metrics[0];
    addGraph(next.name);
  });
  $('window').addEventListener('change', () => { state.windowSeconds = Number($('window').value); refresh(); });
  $('csv-all').addEventListener('click', () => download('metrics.csv',
    'data:text/csv;charset=utf-8,' + encodeURIComponent(allCsv())));
  window.addEventListener('resize', refresh);
  window.__monitor.ready = true;
}

window.__monitor = {
  ready: false,
  ticks: () => state.ticks.length,
  paused: () => state.paused,
  threads: () => [...state.threads.values()].map(({ tid, name, active, ended, cpu }) => ({ tid, name, active, ended, cpu })),
  graphs: () => state.graphs.map((g) => g.drawn),
  png: (i) => png(state.graphs[i]),
  csv: (i) => graphCsv(state.graphs[i]),
  allCsv: () => allCsv(),
};

main().catch((e) => notice(`hetrace monitor: ${e}`));
