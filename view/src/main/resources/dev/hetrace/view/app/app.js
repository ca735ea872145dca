// hetrace view: the timeline and its panels (diagnosis, statistics, the events of a place),
// on the JSON API of `hetrace view` or the data embedded in a report (source.js). No build
// step, nothing from the network.
import {Timeline, formatTime, esc} from './timeline.js';
import {get, embedded, reportNote} from './source.js';
import {histogram, boxPlots, scatter} from './charts.js';
import {configure} from './wire.js';
import {swatch, stateSwatch, stateOf, STATE_LOOK} from './colors.js';

const $ = id => document.getElementById(id);

const json = get;

// a report: say what it holds; no server, so no pattern search nor statistics of a range
if (embedded) {
  document.title = 'hetrace report';
  $('report-note').textContent = reportNote;
  $('report-note').hidden = false;
  $('stats-range').hidden = true;
  $('stats-all').hidden = true;
  document.querySelector('aside nav button[data-tab="pattern"]').hidden = true;
}

const meta = await json('api/meta');
configure(meta.wire);
// the page's title names the traces
{
  const t = meta.traces.length > 3 ? `${meta.traces.slice(0, 3).join(', ')} and ${meta.traces.length - 3} more` : meta.traces.join(', ');
  document.title = `${t} · hetrace ${embedded ? 'report' : 'view'}`;
}
const view = new Timeline($('canvas'), $('tooltip'), meta, {
  view: (from, to) => {
    $('range').textContent = `${formatTime(from, to - from)} – ${formatTime(to, to - from)}`;
    // once the view rests (browsers refuse many address changes in a row)
    clearTimeout(window.__hashTimer);
    if (!embedded) window.__hashTimer = setTimeout(() => history.replaceState(null, '', `#from=${Math.round(from)}&to=${Math.round(to)}`), 400);
  },
  click: (row, from, to, picked) => { showDetails(row, picked); showEvents(row, from, to); },
  select: (from, to) => select(from, to),
  rulerClick: t => addMarker(t),
  drawn: d => legendSoon(d),
  answer: a => {
    if (!embedded) return;
    window.__hetrace.lastAnswerFinest = a.finest || 0;
    $('report-zoom').hidden = !a.finest;
    if (a.finest) $('report-zoom').textContent = `summaries: finer than ${formatTime(a.finest)} per column is not in this report`;
  },
});
// the view's range in the address (#from=…&to=…, ns from the first event): reloading or sharing it opens there
{
  const h = new URLSearchParams(location.hash.slice(1));
  const from = Number(h.get('from'));
  const to = Number(h.get('to'));
  if (h.has('from') && h.has('to') && Number.isFinite(from) && Number.isFinite(to) && to > from) view.zoomTo(from, to);
  else view.fit();
}

// the panels ask for their data once the first view is drawn: on a big board their answers (and
// the page's work to show them) would otherwise compete with it, on the server and here; if that
// first view fails, they are asked for all the same
const firstDrawn = view.firstView.catch(() => {});

// what tests (and curious people) can read: what was drawn last, and a way to move
window.__hetrace = {
  meta,
  view,
  get lastDraw() { return view.lastDraw; },
  settled: () => view.settled(),
  zoomTo: (from, to) => view.zoomTo(from, to),
  select: (from, to) => select(from, to),
  addMarker: t => addMarker(t),
  get markers() { return markers.map(m => ({...m})); },
  get selection() { return selection && {...selection}; },
  get legend() { return [...document.querySelectorAll('#legend .entry')].map(e => ({label: e.dataset.label, color: e.dataset.color})); },
  reveal: id => view.reveal(id),
  diagnosisLoaded: false,
  lastAnswerFinest: 0,
};

// ---- tabs

function showTab(name) {
  for (const b of document.querySelectorAll('aside nav button')) b.classList.toggle('active', b.dataset.tab === name);
  for (const s of document.querySelectorAll('.tab')) s.classList.toggle('active', s.id === name);
  if (name === 'durations') durationsShown();
  if (name === 'stats' && !statsAsked) loadStats().catch(e => { $('stats').textContent = 'statistics failed: ' + e.message; });
}
for (const b of document.querySelectorAll('aside nav button')) b.addEventListener('click', () => showTab(b.dataset.tab));

// ---- zooming to an interval: it takes the middle third of the view, its row shown

function focus(row, start, end) {
  const d = Math.max(end - start, 1000);
  if (row >= 0) view.reveal(row);
  view.highlight = {row, start, end};
  view.zoomTo(start - d, end + d);
}

// ---- diagnosis

async function loadDiagnosis() {
  const d = await json('api/diagnosis');
  view.setDiagnosis(d);
  // the panel once the timeline has drawn the outliers: laying out the one and painting the other in one frame made
  // it a long one
  await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
  // the panel's HTML at once, and one listener: a large board's hundreds of outliers, each an element made, filled
  // and listened to on its own, made a long task that the first zoom waited behind
  const attr = v => esc(String(v ?? ''));
  const place = (row, start, end) => `data-row="${row}" data-start="${start}" data-end="${end}"`;
  const html = [];
  if (d.findings.length === 0) html.push('<p class="muted">nothing stands out</p>');
  for (const f of d.findings) html.push(`<p class="finding">${esc(f)}</p>`);
  if (d.outliers.length) {
    html.push(`<h4>outliers (${d.outlierCount}${d.outlierCount > d.outliers.length ? ', the longest ' + d.outliers.length : ''}):`
      + ' click to see</h4>');
  }
  for (const o of d.outliers) {
    const what = o.kind === 'activation' ? `${o.task} (activation)` : `${o.task} · ${o.name}`;
    const by = o.preemptedBy.length ? `, preempted ${formatTime(o.preempted)} by ${o.preemptedBy.join(', ')}` : '';
    const blocked = o.blocked > 0 ? `, blocked ${formatTime(o.blocked)}` : '';
    html.push(`<div class="outlier" data-core="${attr(o.core)}" data-task="${attr(o.task)}" data-name="${attr(o.name)}"`
      + ` data-kind="${attr(o.kind)}" ${place(o.row, o.start, o.end)}><b>${esc(o.core)}</b> ${esc(what)} at ${formatTime(o.start)}:`
      + ` ${formatTime(o.end - o.start)} (${o.ratio == null ? 'against' : `${o.ratio.toFixed(1)}×`} the median`
      + ` ${formatTime(o.median)})${esc(by)}${esc(blocked)}</div>`);
  }
  for (const s of d.silent) {
    html.push(`<div class="outlier" ${place(s.row, s.last, s.last + 1)}>${esc(s.trace)} went silent at ${formatTime(s.last)}</div>`);
  }
  for (const s of d.stuck) {
    html.push(`<div class="outlier" ${place(s.row, s.since, meta.span)}>task ${esc(s.task)} stuck since ${formatTime(s.since)}</div>`);
  }
  $('diagnosis').innerHTML = html.join('');
  window.__hetrace.diagnosisLoaded = true;
  const first = d.outliers.find(o => o.name) ?? d.outliers.find(o => o.task);
  if (first) durationsFirst = first.name ?? first.task;
  if ($('durations').classList.contains('active')) durationsShown();
}
// an outlier, a silent trace or a stuck task clicked: zoom there
$('diagnosis').addEventListener('click', e => {
  const at = e.target.closest('#diagnosis .outlier');
  if (at) focus(Number(at.dataset.row), Number(at.dataset.start), Number(at.dataset.end));
});
firstDrawn.then(loadDiagnosis).catch(e => { $('diagnosis').textContent = 'diagnosis failed: ' + e.message; });

// ---- statistics (sortable)

const COLS = [['context', 'context'], ['name', 'name'], ['total', 'total'], ['percent', '%'], ['count', 'count'],
  ['min', 'min'], ['avg', 'avg'], ['max', 'max'], ['avgInterval', 'avg interval']];
let stats = {rows: []};
let sortBy = {key: 'total', desc: true};

/**
 * The statistics are asked for when their tab is first shown, or a range's when one is selected: on a large board
 * those of everything are megabytes, read and laid out while the first zooms would wait. The last asked is shown.
 */
let statsAsked = false;
let statsAsking = 0;

async function loadStats(from, to) {
  statsAsked = true;
  const asking = ++statsAsking;
  const got = await json(from === undefined ? 'api/stats' : `api/stats?from=${Math.floor(from)}&to=${Math.ceil(to)}`);
  if (asking !== statsAsking) return; // asked again meanwhile
  stats = got;
  window.__hetrace.lastStats = stats;
  renderStats();
}

/** How many of the statistics table's rows are put in one task; statsRendering: the latest rendering of it. */
const STATS_SLICE = 250;
var statsRendering = 0; // eslint-disable-line no-var

function renderStats() {
  const head = $('stats-table').tHead;
  head.innerHTML = '<tr>' + COLS.map(([k, n]) => `<th data-key="${k}">${n}${sortBy.key === k ? (sortBy.desc ? ' ▾' : ' ▴') : ''}</th>`).join('') + '</tr>';
  for (const th of head.querySelectorAll('th')) {
    th.addEventListener('click', () => {
      sortBy = {key: th.dataset.key, desc: sortBy.key === th.dataset.key ? !sortBy.desc : true};
      renderStats();
    });
  }
  const ctx = $('stats-context').value;
  const rows = stats.rows.filter(r => !ctx || r.context === ctx);
  const k = sortBy.key;
  rows.sort((a, b) => {
    const x = a[k] ?? -Infinity;
    const y = b[k] ?? -Infinity;
    const c = typeof x === 'string' ? x.localeCompare(y) : x - y;
    return sortBy.desc ? -c : c;
  });
  const t = v => (v === null || v < 0 ? '-' : formatTime(v));
  const html = list => list.map(r => `<tr><td>${r.context}</td><td>${esc(r.name)}</td>`
    + `<td>${t(r.total)}</td><td>${r.percent.toFixed(2)}</td><td>${r.count}</td><td>${t(r.min)}</td>`
    + `<td>${t(r.avg)}</td><td>${t(r.max)}</td><td>${t(r.avgInterval)}</td></tr>`).join('');
  // the first rows at once, the others in slices, each in a task of its own: 2,000 rows at once made a task of
  // 100 ms that a zoom asked meanwhile waited behind; a later rendering stops the slices of this one
  const shown = rows.slice(0, 2000);
  const body = $('stats-table').tBodies[0];
  const rendering = ++statsRendering;
  body.innerHTML = html(shown.slice(0, STATS_SLICE));
  const more = at => {
    if (rendering !== statsRendering || at >= shown.length) return;
    body.insertAdjacentHTML('beforeend', html(shown.slice(at, at + STATS_SLICE)));
    setTimeout(() => more(at + STATS_SLICE), 0);
  };
  setTimeout(() => more(STATS_SLICE), 0);
}
$('stats-context').addEventListener('change', renderStats);
$('stats-range').addEventListener('click', () => loadStats(Math.max(0, view.from), Math.min(meta.span, view.to)));
$('stats-all').addEventListener('click', () => loadStats());

// ---- the events of a place

async function showEvents(row, from, to) {
  const e = await json(`api/events?row=${row}&from=${from}&to=${to}`);
  const box = $('place');
  box.innerHTML = `<h4>here</h4><p><b>${esc(e.name)}</b> around ${formatTime((from + to) / 2)}</p>`;
  if (!e.intervals.length && !e.messages.length) box.innerHTML += '<p class="muted">nothing here</p>';
  for (const i of e.intervals) {
    const div = document.createElement('div');
    div.className = 'event';
    const flags = [i.startUnknown && 'began before the trace', i.endUnknown && 'end not seen', i.eventsLost && 'events lost']
      .filter(Boolean).join(', ');
    div.innerHTML = `<span class="swatch" style="background:${esc(i.color)}"></span><b>${esc(i.name)}</b> ${esc(i.what)}<br>`
      + `${formatTime(i.start)} → ${formatTime(i.end)} (${formatTime(i.end - i.start)}`
      + `${i.self !== undefined ? ', self ' + formatTime(i.self) : ''})${flags ? ' · ' + flags : ''}`;
    div.addEventListener('click', () => focus(row, i.start, i.end));
    box.appendChild(div);
  }
  for (const m of e.messages) {
    const div = document.createElement('div');
    div.className = 'event';
    div.textContent = `message ${m.id} (queue ${m.queue}): ${m.from} at ${formatTime(m.send)} → ${m.to} at ${formatTime(m.receive)}`;
    div.addEventListener('click', () => view.zoomTo(m.send - (m.receive - m.send) * 2, m.receive + (m.receive - m.send) * 2));
    box.appendChild(div);
  }
  showTab('events');
}

// ---- pattern search: A followed by B (KPTrace's)

$('pattern-form').addEventListener('submit', async e => {
  e.preventDefault();
  const f = new FormData(e.target);
  const box = $('pattern-result');
  box.innerHTML = '<p class="muted">searching…</p>';
  const q = new URLSearchParams({first: f.get('first'), then: f.get('then'), where: f.get('where') || '',
    sameCore: f.get('sameCore') ? 'true' : 'false'});
  let r;
  try {
    r = await json('api/pattern?' + q);
  } catch (err) {
    box.innerHTML = `<p>${esc(err.message)}</p>`;
    return;
  }
  const t = v => (v === null || v < 0 ? '-' : formatTime(v));
  box.innerHTML = `<p id="pattern-summary" data-count="${r.count}"><b>${r.count}</b> occurrences; duration min ${t(r.min)},`
    + ` avg ${t(r.avg)}, max ${t(r.max)}; ignored: ${r.ignoredFirst} A, ${r.ignoredThen} B</p>`;
  const max = Math.max(1, ...r.histogram);
  const hist = document.createElement('div');
  hist.className = 'histogram';
  hist.title = `durations from ${t(r.min)} to ${t(r.max)}`;
  for (const h of r.histogram) {
    const bar = document.createElement('span');
    bar.style.height = (2 + 48 * h / max) + 'px';
    bar.title = String(h);
    hist.appendChild(bar);
  }
  box.appendChild(hist);
  for (const o of r.occurrences) {
    const div = document.createElement('div');
    div.className = 'event';
    div.textContent = `${formatTime(o.start)} ${o.startCore} → ${o.endCore}: ${formatTime(o.end - o.start)}`;
    div.addEventListener('click', () => focus(o.row, o.start, o.end));
    box.appendChild(div);
  }
});

// ---- durations of a function, task or interrupt: histogram, box plots per iteration, scatter

const METRICS = {
  start: ['start', i => i.start, v => formatTime(v)],
  duration: ['duration', i => i.duration, v => formatTime(v)],
  self: ['self time', i => i.self ?? i.duration, v => formatTime(v)],
  iteration: ['iteration', i => i.iteration, v => String(Math.round(v))],
  core: ['core', i => i.coreIndex, v => String(Math.round(v))],
};
for (const id of ['scatter-x', 'scatter-y']) {
  $(id).innerHTML = Object.entries(METRICS).map(([k, [n]]) => `<option value="${k}">${n}</option>`).join('');
}
$('scatter-x').value = 'start';
$('scatter-y').value = 'duration';
// the names the panel can show (a report's: those it holds)
json('api/names').then(n => {
  $('label-list').innerHTML = n.durations.slice(0, 5000).map(x => `<option value="${esc(x)}">`).join('');
  window.__hetrace.durationNames = n.durations;
}).catch(() => {});
let durations = null;
// the durations panel opens on the longest outlier's name, asked for when the panel is first shown: on a large board
// its answer is megabytes and its charts a long task, which the first zooms would wait behind
var durationsFirst = null; // eslint-disable-line no-var
function durationsShown() {
  if (!durations && durationsFirst && $('durations-form').elements.name.value === '') showDurations(durationsFirst);
}

async function showDurations(name) {
  $('durations-form').elements.name.value = name;
  let d;
  try {
    d = await json('api/durations?name=' + encodeURIComponent(name));
  } catch (err) {
    $('durations-count').textContent = err.message;
    for (const id of ['durations-histogram', 'durations-boxes', 'durations-scatter']) $(id).innerHTML = '';
    return;
  }
  window.__hetrace.lastDurations = JSON.parse(JSON.stringify(d)); // as answered (tests)
  const coreIndex = new Map();
  for (const i of d.intervals) {
    if (!coreIndex.has(i.core)) coreIndex.set(i.core, coreIndex.size);
    i.coreIndex = coreIndex.get(i.core);
  }
  const cores = [...coreIndex.keys()];
  durations = d;
  $('durations-count').textContent = `${d.total} intervals` + (d.shown < d.total ? ` (${d.shown} shown)` : '')
    + ` on ${cores.length} core${cores.length === 1 ? '' : 's'}`;
  const longest = list => list.reduce((a, b) => (b.duration > a.duration ? b : a));
  $('durations-histogram').replaceChildren(histogram(d.intervals.map(i => i.duration), v => formatTime(v), bin => {
    const inBin = d.intervals.filter(i => i.duration >= bin.from && i.duration <= bin.to);
    if (inBin.length) { const i = longest(inBin); focus(i.row, i.start, i.start + i.duration); }
  }));
  // iterations: the n-th interval of each row; many iterations share a box
  const last = Math.max(0, ...d.intervals.map(i => i.iteration));
  const per = Math.ceil((last + 1) / 100);
  const groups = [];
  for (const i of d.intervals) {
    const k = Math.floor(i.iteration / per);
    (groups[k] ??= {key: per === 1 ? k : `${k * per}–${k * per + per - 1}`, values: [], items: []}).values.push(i.duration);
    groups[k].items.push(i);
  }
  $('durations-boxes').replaceChildren(boxPlots(groups.filter(Boolean), v => formatTime(v), 'iteration', g => {
    const i = longest(g.items);
    focus(i.row, i.start, i.start + i.duration);
  }));
  drawScatter();
  window.__hetrace.durationsLoaded = name;
}

function drawScatter() {
  if (!durations) return;
  const [xn, fx, gx] = METRICS[$('scatter-x').value];
  const [yn, fy, gy] = METRICS[$('scatter-y').value];
  const items = durations.intervals.slice(0, 5000).map(i => ({x: fx(i), y: fy(i), label: i.core, i}));
  $('durations-scatter').replaceChildren(scatter(items, gx, gy, xn, yn, p => focus(p.i.row, p.i.start, p.i.start + p.i.duration)));
}
$('scatter-x').addEventListener('change', drawScatter);
$('scatter-y').addEventListener('change', drawScatter);
$('durations-form').addEventListener('submit', e => {
  e.preventDefault();
  showDurations(new FormData(e.target).get('name').trim());
  showTab('durations');
});
window.__hetrace.showDurations = showDurations;

// ---- search, next and previous

let lastFound = null;
async function find(dir) {
  const q = $('search').value.trim();
  if (!q) return;
  const same = lastFound && lastFound.q === q;
  const after = same ? lastFound.start : (dir === 'next' ? view.from : view.to);
  const r = await json(`api/find?q=${encodeURIComponent(q)}&after=${Math.round(after)}&dir=${dir}`
    + (same ? `&index=${lastFound.index}` : ''));
  if (r.row === undefined) {
    $('found').textContent = r.matches ? `${r.matches} matches, no ${dir === 'next' ? 'later' : 'earlier'} one` : 'not found';
    return;
  }
  lastFound = {q, start: r.start, index: r.index};
  $('found').textContent = `${r.rank} of ${r.matches}`;
  Object.assign($('found').dataset, {rank: r.rank, matches: r.matches, row: r.row, start: r.start});
  const span = view.to - view.from;
  if (r.end - r.start < span / 3 && span < meta.span / 4) {
    view.reveal(r.row);
    view.highlight = {row: r.row, start: r.start, end: r.end};
    view.zoomTo((r.start + r.end) / 2 - span / 2, (r.start + r.end) / 2 + span / 2);
  } else {
    focus(r.row, r.start, r.end);
  }
}
$('search').addEventListener('keydown', e => {
  if (e.key === 'Enter') find(e.shiftKey ? 'prev' : 'next');
});
$('search').addEventListener('input', () => { lastFound = null; });
$('next').addEventListener('click', () => find('next'));
$('prev').addEventListener('click', () => find('prev'));
$('fit').addEventListener('click', () => view.fit());
$('density').addEventListener('change', e => { view.density = e.target.checked; view.draw(); });
$('smooth').addEventListener('change', e => { view.smooth = e.target.checked; view.draw(); });
$('sync-marks').addEventListener('change', e => { view.syncMarks = e.target.checked; view.draw(); });
$('adjust').addEventListener('change', e => { view.adjust = e.target.checked; view.draw(); });
$('arrows').addEventListener('change', e => { view.arrows = e.target.checked; view.draw(); });
$('compress').addEventListener('change', e => view.setCompress(e.target.checked));
$('help-button').addEventListener('click', () => { $('help').hidden = !$('help').hidden; });

// ---- the details of what was clicked: an interval (its place, times, task, core, the messages in it) or a
// point event (its fields, from the store)

const KIND = {core: 'task run', irq: 'interrupt', calls: 'call', task: 'task state', trace: 'trace', board: 'board'};

/** The task a row is about: a task's row, or a call row under it; for a core row, the interval's own name. */
function taskOf(row, name) {
  for (let r = row; r >= 0; r = meta.rows[r].parent) if (meta.rows[r].kind === 'task') return meta.rows[r].name;
  return meta.rows[row].kind === 'core' ? name : null;
}

async function showDetails(row, picked) {
  const box = $('details');
  box.replaceChildren();
  delete box.dataset.name;
  if (!picked) return;
  const r = meta.rows[row];
  const line = (k, v) => {
    const p = document.createElement('div');
    p.className = 'field';
    p.innerHTML = `<span class="key">${esc(k)}</span> ${v}`;
    box.appendChild(p);
  };
  const h = document.createElement('h4');
  box.appendChild(h);
  if (picked.mark) {
    const m = picked.mark;
    h.textContent = `${m.label} (point event)`;
    Object.assign(box.dataset, {kind: 'mark', name: m.label, time: m.time, core: r.core ?? ''});
    line('time', formatTime(m.time));
    line('row', esc(r.name));
    if (r.core) line('core', esc(r.core));
    let e;
    try {
      e = await json(`api/mark?row=${row}&time=${m.time}&name=${encodeURIComponent(m.label)}`);
    } catch (err) {
      line('fields', esc(err.message));
      return;
    }
    if (!e.events) {
      line('fields', '<span class="muted">not kept (a report, or a view without the store)</span>');
    } else {
      // the fields by scope (payload, context...), as `hetrace print --format json` has them; several events of
      // that name at that time: each (this row's core's first)
      const flat = (o, path, out) => {
        for (const [k, v] of Object.entries(o ?? {})) {
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) flat(v, path ? `${path}.${k}` : k, out);
          else out.push([path ? `${path}.${k}` : k, Array.isArray(v) ? JSON.stringify(v) : v]);
        }
        return out;
      };
      if (!e.events.length) line('fields', '<span class="muted">not found in the store</span>');
      for (const ev of e.events) {
        line('trace', esc(ev.trace) + (ev.core ? ` · ${esc(ev.core)}` : ''));
        const f = flat(ev.fields, '', []);
        if (!f.length) line('fields', '<span class="muted">none</span>');
        for (const [k, v] of f) line(k, esc(v));
      }
      box.dataset.fields = JSON.stringify(e.events);
    }
    showTab('events');
    return;
  }
  const q = picked.rect;
  const label = meta.labels.indexOf(q.label);
  h.replaceChildren(swatch(meta, label, row), document.createTextNode(' ' + q.label));
  const task = taskOf(row, q.label);
  Object.assign(box.dataset, {kind: 'interval', name: q.label, start: q.start, end: q.end, duration: q.end - q.start,
    core: r.core ?? '', task: task ?? '', row});
  line('what', esc(KIND[r.kind] ?? r.kind) + (stateOf(meta, label) ? ` (${esc(STATE_LOOK[stateOf(meta, label)].text)})` : ''));
  line('start', formatTime(q.start));
  line('end', formatTime(q.end));
  line('duration', formatTime(q.end - q.start));
  if (task) line('task', esc(task));
  if (r.core) line('core', esc(r.core));
  line('row', esc(r.name));
  // the server's record of it: its state or depth, self time, flags, and the messages sent or received in it
  let e;
  try {
    e = await json(`api/events?row=${row}&from=${Math.floor(q.start)}&to=${Math.ceil(q.end)}`);
  } catch (err) {
    return;
  }
  const i = e.intervals.find(x => x.start === q.start && x.end === q.end && x.name === q.label);
  if (i) {
    if (i.what) line('state', esc(i.what));
    if (i.self !== undefined) line('self time', formatTime(i.self));
    const flags = [i.startUnknown && 'began before the trace', i.endUnknown && 'end not seen', i.eventsLost && 'events lost']
      .filter(Boolean);
    if (flags.length) line('note', esc(flags.join(', ')));
  }
  const inside = e.messages.filter(m => (m.send >= q.start && m.send <= q.end) || (m.receive >= q.start && m.receive <= q.end));
  box.dataset.messages = inside.length;
  for (const m of inside.slice(0, 20)) {
    const div = document.createElement('div');
    div.className = 'event';
    div.textContent = `message ${m.id} (queue ${m.queue}): ${m.from} at ${formatTime(m.send)} → ${m.to} at ${formatTime(m.receive)}`;
    div.addEventListener('click', () => view.zoomTo(m.send - (m.receive - m.send) * 2, m.receive + (m.receive - m.send) * 2));
    box.appendChild(div);
  }
  if (inside.length > 20) line('', `and ${inside.length - 20} more messages`);
}

// ---- the legend: the names drawn in the last frame (and the states' looks when a task's states are drawn)

// var: the first frame is drawn (and this called) before the module's body gets here
var legendQueued = false; // eslint-disable-line no-var
var legendKey = ''; // eslint-disable-line no-var
function legendSoon() {
  if (legendQueued) return;
  legendQueued = true;
  requestAnimationFrame(() => { legendQueued = false; drawLegend(view.lastDraw); });
}
function drawLegend(d) {
  if (!d) return;
  const names = d.labels.filter(l => !stateOf(meta, l)).sort((a, b) => meta.labels[a].localeCompare(meta.labels[b]));
  const states = Object.keys(STATE_LOOK).filter(s => d.labels.some(l => stateOf(meta, l) === s));
  const key = names.join(',') + '|' + states.join(',');
  if (key === legendKey) return;
  legendKey = key;
  $('legend').replaceChildren(...names.map(legendEntry), ...states.map(stateEntry));
}

// each entry made once, with its swatch (a canvas) and its listener: a kernel trace's zooms change hundreds of
// threads on screen, and making them all again took tens of milliseconds a frame
const legendEntries = new Map();
function legendEntry(l) {
  let e = legendEntries.get(l);
  if (!e) {
    e = document.createElement('span');
    e.className = 'entry';
    Object.assign(e.dataset, {label: meta.labels[l], color: meta.colors[l]});
    e.append(swatch(meta, l), meta.labels[l]);
    e.title = 'click: its durations';
    e.addEventListener('click', () => { window.__hetrace.showDurations(meta.labels[l]); showTab('durations'); });
    legendEntries.set(l, e);
  }
  return e;
}
const stateEntries = new Map();
function stateEntry(s) {
  let e = stateEntries.get(s);
  if (!e) {
    e = document.createElement('span');
    e.className = 'entry state';
    Object.assign(e.dataset, {label: `(${s})`, color: meta.colors[meta.labels.indexOf(`(${s})`)]});
    e.append(stateSwatch(s), STATE_LOOK[s].text);
    stateEntries.set(s, e);
  }
  return e;
}

// ---- a selection on the ruler: its duration, and the statistics of its range

let selection = null;
async function select(from, to) {
  from = Math.max(0, Math.round(from));
  to = Math.min(meta.span, Math.round(to));
  if (to <= from) return;
  selection = {from, to};
  view.draw();
  const note = $('selection-note');
  note.hidden = false;
  note.dataset.from = from;
  note.dataset.to = to;
  note.dataset.duration = to - from;
  $('selection-text').textContent = `selection ${formatTime(to - from)}: ${formatTime(from, to - from)} – ${formatTime(to, to - from)}`;
  if (!embedded) statsAsked = true; // the range's, not everything's first
  showTab('stats');
  if (embedded) {
    $('selection-text').textContent += ' (the statistics of a range are not in a report: those of everything below)';
    return;
  }
  await loadStats(from, to);
  note.dataset.loaded = `${from}-${to}`;
}
$('selection-zoom').addEventListener('click', () => { if (selection) view.zoomTo(selection.from, selection.to); });
$('selection-clear').addEventListener('click', () => {
  selection = null;
  $('selection-note').hidden = true;
  view.draw();
  if (!embedded) loadStats();
});

// ---- markers: a click on the ruler drops one (M: at the pointer, else the middle); listed, jumped to, removed

const markers = [];
let markerSeq = 0;
function addMarker(t) {
  markers.push({id: ++markerSeq, time: Math.round(t), name: `marker ${markerSeq}`});
  markers.sort((a, b) => a.time - b.time);
  renderMarkers();
  view.draw();
}
function renderMarkers() {
  const box = $('marker-list');
  box.replaceChildren();
  if (!markers.length) box.innerHTML = '<p class="muted">click the ruler (or press M) to drop a marker</p>';
  markers.forEach((m, k) => {
    const div = document.createElement('div');
    div.className = 'event marker';
    div.dataset.time = m.time;
    const gap = k > 0 ? ` <span class="muted">(+${formatTime(m.time - markers[k - 1].time)})</span>` : '';
    div.innerHTML = `<b>${esc(m.name)}</b> at ${formatTime(m.time)}${gap} <button class="remove" title="remove">×</button>`;
    div.addEventListener('click', e => {
      if (e.target.classList.contains('remove')) {
        markers.splice(markers.indexOf(m), 1);
        renderMarkers();
        view.draw();
        return;
      }
      const span = view.to - view.from;
      view.zoomTo(m.time - span / 2, m.time + span / 2);
    });
    box.appendChild(div);
  });
}
renderMarkers();
window.addEventListener('keydown', e => {
  if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || (e.key !== 'm' && e.key !== 'M')) return;
  addMarker(view.pointerX != null ? view.timeAt(view.pointerX) : (view.from + view.to) / 2);
  e.preventDefault();
});

// drawn over the tracks: the selection (shaded, its duration on the ruler) and the markers (lines, flags on the ruler)
view.overlays.push((ctx, tl, top, bottom) => {
  if (selection) {
    const x0 = tl.xAt(selection.from);
    const x1 = tl.xAt(selection.to);
    ctx.fillStyle = 'rgba(255, 200, 0, .14)';
    ctx.fillRect(x0, top, Math.max(1, x1 - x0), bottom - top);
    ctx.strokeStyle = 'rgba(160, 110, 0, .8)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x0 + 0.5, top); ctx.lineTo(x0 + 0.5, bottom);
    ctx.moveTo(x1 + 0.5, top); ctx.lineTo(x1 + 0.5, bottom);
    ctx.stroke();
  }
  ctx.strokeStyle = '#7b2cbf';
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const m of markers) {
    const x = Math.round(tl.xAt(m.time)) + 0.5;
    ctx.moveTo(x, top);
    ctx.lineTo(x, bottom);
  }
  ctx.stroke();
});
view.rulerOverlays = [(ctx, tl, h) => {
  const left = tl.xAt(tl.from);
  if (selection) {
    const x0 = Math.max(left, tl.xAt(selection.from));
    const x1 = Math.min(tl.cssWidth, tl.xAt(selection.to));
    if (x1 > x0) {
      ctx.fillStyle = 'rgba(255, 200, 0, .35)';
      ctx.fillRect(x0, 0, x1 - x0, h);
      const text = formatTime(selection.to - selection.from);
      const w = ctx.measureText(text).width + 8;
      const x = Math.min(Math.max(left, (x0 + x1) / 2 - w / 2), tl.cssWidth - w);
      ctx.fillStyle = '#fff';
      ctx.fillRect(x, 2, w, h - 8);
      ctx.fillStyle = '#5a3d00';
      ctx.fillText(text, x + 4, h / 2 - 1);
    }
  }
  ctx.fillStyle = '#7b2cbf';
  for (const m of markers) {
    const x = tl.xAt(m.time);
    if (x < left || x > tl.cssWidth) continue;
    ctx.beginPath();
    ctx.moveTo(x - 5, 0);
    ctx.lineTo(x + 5, 0);
    ctx.lineTo(x, 8);
    ctx.fill();
  }
}];
