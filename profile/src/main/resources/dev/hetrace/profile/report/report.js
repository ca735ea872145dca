'use strict';
// hetrace profile report: xTRACT's charts as inline SVG, from the campaign statistics embedded
// above (#hetrace-profile-data). No network, no libraries. Every chart is an <svg data-chart=KIND
// data-of=QUANTITY>, bars are .bar, points .point, so that tests can count what was drawn.
(() => {
  const data = JSON.parse(document.getElementById('hetrace-profile-data').textContent);
  // the SVG namespace as the HTML parser gives it: the file names no address
  const NS = (() => {
    const t = document.createElement('template');
    t.innerHTML = '<svg></svg>';
    return t.content.firstChild.namespaceURI;
  })();
  const root = document.getElementById('report');
  const W = 360, H = 210, M = {l: 52, r: 12, t: 14, b: 34};

  function el(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  const ok = v => v !== null && v !== undefined && Number.isFinite(v);
  function fmt(v) {
    if (!ok(v)) return '–';
    const a = Math.abs(v);
    // counts stay exact; measurements get four significant digits
    if (Number.isInteger(v) && a < 1e12) return String(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(3);
    return String(Number(v.toPrecision(4)));
  }
  const unit = name => name === 'runtime' || name === 'user' || name === 'system' ? ' s' : '';
  function scale(d0, d1, r0, r1) {
    if (!(d1 > d0)) { d0 -= 0.5; d1 += 0.5; }
    const f = (r1 - r0) / (d1 - d0);
    const s = v => r0 + (v - d0) * f;
    s.d0 = d0; s.d1 = d1;
    return s;
  }
  function section(title, note) {
    html('h2', {}, root, title);
    if (note) html('p', {class: 'muted'}, root, note);
    return html('div', {class: 'grid'}, root);
  }
  function figure(parent, caption, kind, of, w, h) {
    const f = html('figure', {}, parent);
    html('figcaption', {}, f, caption);
    const s = el('svg', {width: w || W, height: h || H, 'data-chart': kind, 'data-of': of}, f);
    return s;
  }
  function axes(s, x, y, xLabel, yLabel, w, h) {
    w = w || W; h = h || H;
    el('line', {class: 'axis', x1: M.l, y1: h - M.b, x2: w - M.r, y2: h - M.b}, s);
    el('line', {class: 'axis', x1: M.l, y1: M.t, x2: M.l, y2: h - M.b}, s);
    if (x) {
      el('text', {x: M.l, y: h - M.b + 13, 'text-anchor': 'start'}, s, fmt(x.d0));
      el('text', {x: w - M.r, y: h - M.b + 13, 'text-anchor': 'end'}, s, fmt(x.d1));
    }
    el('text', {x: (M.l + w - M.r) / 2, y: h - 4, 'text-anchor': 'middle'}, s, xLabel);
    if (y) {
      el('text', {x: M.l - 4, y: h - M.b, 'text-anchor': 'end'}, s, fmt(y.d0));
      el('text', {x: M.l - 4, y: M.t + 8, 'text-anchor': 'end'}, s, fmt(y.d1));
    }
    el('text', {x: 10, y: (M.t + h - M.b) / 2, transform: `rotate(-90 10 ${(M.t + h - M.b) / 2})`, 'text-anchor': 'middle'}, s, yLabel);
  }

  // best left, worst right, median marked (xTRACT's runtime histogram; the same per counter)
  function histogram(parent, q) {
    const hst = q.histogram;
    const s = figure(parent, q.name + unit(q.name), 'histogram', q.name);
    const max = Math.max(...hst.counts);
    const x = scale(hst.from, hst.to, M.l, W - M.r);
    const y = scale(0, max, H - M.b, M.t + 22);
    const n = hst.counts.length;
    const bw = (W - M.r - M.l) / n;
    hst.counts.forEach((c, i) => {
      const r = el('rect', {class: 'bar', x: M.l + i * bw + 0.5, width: Math.max(1, bw - 1), y: y(c), height: H - M.b - y(c),
        'data-count': c}, s);
      el('title', {}, r, `${c} run${c === 1 ? '' : 's'}`);
    });
    axes(s, x, y, q.name + unit(q.name), 'runs');
    const marks = [['best', q.min], ['median', q.median], ['worst', q.max]];
    marks.forEach(([name, v], i) => {
      const px = hst.to > hst.from ? x(v) : M.l + (W - M.r - M.l) / 2;
      el('line', {class: 'marker ' + name, x1: px, x2: px, y1: M.t + 20, y2: H - M.b, 'data-mark': name, 'data-value': v}, s);
      const anchor = i === 0 ? 'start' : i === 2 ? 'end' : 'middle';
      el('text', {class: 'mark-label', x: [M.l, (M.l + W - M.r) / 2, W - M.r][i], y: M.t + 4 + (i === 1 ? 10 : 0),
        'text-anchor': anchor}, s, `${name} ${fmt(v)}`);
    });
  }

  function scatter(parent, reg) {
    const xs = data.columns[reg.x], ys = data.columns.runtime;
    const pts = [];
    xs.forEach((v, i) => { if (ok(v) && ok(ys[i])) pts.push([v, ys[i], i]); });
    const s = figure(parent, `runtime vs ${reg.x}`, 'scatter', reg.x);
    const x = scale(Math.min(...pts.map(p => p[0])), Math.max(...pts.map(p => p[0])), M.l, W - M.r);
    const y = scale(Math.min(...pts.map(p => p[1])), Math.max(...pts.map(p => p[1])), H - M.b, M.t + 16);
    axes(s, x, y, reg.x, 'runtime s');
    for (const [a, b, i] of pts) {
      const c = el('circle', {class: 'point', cx: x(a), cy: y(b), r: 3}, s);
      el('title', {}, c, `${data.runLabels[i]}: ${fmt(a)}, ${fmt(b)} s`);
    }
    if (ok(reg.slope)) {
      const f = v => reg.intercept + reg.slope * v;
      el('line', {class: 'regression', x1: x(x.d0), y1: y(f(x.d0)), x2: x(x.d1), y2: y(f(x.d1))}, s);
    }
    el('text', {class: 'fit', x: M.l + 4, y: M.t + 4}, s,
      ok(reg.slope) ? `slope ${fmt(reg.slope)}  r ${fmt(reg.r)}  R² ${fmt(reg.r2)}` : 'no line: the counter does not vary');
  }

  function slowdown(parent, c) {
    const w = 2 * W, h = 1.3 * H;
    const measure = c.measure || 'runtime', u = c.unit === undefined ? 's' : c.unit;
    const s = figure(parent, `slowdown of ${measure} vs stress level`, 'slowdown', measure, w, h);
    const lv = c.levels;
    const x = scale(Math.min(...lv.map(l => l.level)), Math.max(...lv.map(l => l.level)), M.l + 10, w - M.r - 10);
    const top = Math.max(1 + c.threshold, ...lv.map(l => ok(l.high) ? l.high : l.slowdown));
    const y = scale(Math.min(0.95, ...lv.map(l => ok(l.low) ? l.low : l.slowdown)), top * 1.03, h - M.b, M.t + 18);
    axes(s, null, y, 'stress level', 'slowdown ×', w, h);
    const ty = y(1 + c.threshold);
    el('line', {class: 'threshold', x1: M.l, x2: w - M.r, y1: ty, y2: ty}, s);
    el('text', {class: 'threshold-label', x: w - M.r, y: ty - 4, 'text-anchor': 'end'}, s,
      `threshold +${fmt(c.threshold * 100)} %`);
    el('polyline', {class: 'curve', points: lv.map(l => `${x(l.level)},${y(l.slowdown)}`).join(' ')}, s);
    for (const l of lv) {
      if (ok(l.low) && ok(l.high)) el('line', {class: 'ci', x1: x(l.level), x2: x(l.level), y1: y(l.low), y2: y(l.high)}, s);
      const p = el('circle', {class: 'level' + (l.acceptable ? '' : ' unacceptable'), cx: x(l.level), cy: y(l.slowdown), r: 4,
        'data-level': l.label}, s);
      el('title', {}, p, `stress ${l.label}: ×${fmt(l.slowdown)} [${fmt(l.low)}, ${fmt(l.high)}], median ${measure} ${fmt(l.median)}${u ? ' ' + u : ''}, ${l.n} runs`);
      el('text', {x: x(l.level), y: h - M.b + 13, 'text-anchor': 'middle'}, s, l.label);
    }
    if (c.knee !== null) {
      const k = lv.find(l => l.label === c.knee);
      el('line', {class: 'knee-line', x1: x(k.level), x2: x(k.level), y1: M.t + 14, y2: h - M.b}, s);
      // the label on the side of the line with room for it
      const right = x(k.level) < w / 2;
      el('text', {class: 'knee', x: x(k.level) + (right ? 4 : -4), y: M.t + 10, 'text-anchor': right ? 'start' : 'end'}, s,
        `knee: stress ${k.label} (×${fmt(k.slowdown)})`);
    }
    // the chart says it short; the sentences under it say why when there is no budget
    const b = c.budget;
    const note = b === null ? 'no extra-access budget (below)'
      : `extra-access budget: stress ${b.level}` + (ok(b.bytesPerSecond) && b.bytesPerSecond > 0
        ? ` = ${fmt(b.bytesPerSecond / 1e6)} MB/s` : ' (bandwidth unknown, below)');
    el('text', {class: 'budget', x: M.l + 6, y: M.t + 24}, s, note);
    const notes = html('div', {id: 'slowdown-notes'}, s.parentNode);
    for (const t of [c.basis, c.kneeNote, c.budgetNote]) if (t) html('p', {class: 'muted'}, notes, t);
  }

  function split(parent) {
    const u = data.columns.user, sy = data.columns.system;
    const idx = u.map((v, i) => i).filter(i => ok(u[i]) && ok(sy[i]));
    if (idx.length === 0) return false;
    const w = Math.max(W, Math.min(2 * W, M.l + M.r + idx.length * 8));
    const s = figure(parent, 'user vs system time per run', 'split', 'runtime', w, H);
    const y = scale(0, Math.max(...idx.map(i => u[i] + sy[i])), H - M.b, M.t + 16);
    axes(s, null, y, 'runs', 'CPU time s', w, H);
    const bw = (w - M.l - M.r) / idx.length;
    idx.forEach((i, k) => {
      const x0 = M.l + k * bw + 0.5;
      const a = el('rect', {class: 'user', x: x0, width: Math.max(1, bw - 1), y: y(u[i]), height: H - M.b - y(u[i])}, s);
      el('title', {}, a, `${data.runLabels[i]}: user ${fmt(u[i])} s`);
      const b = el('rect', {class: 'system', x: x0, width: Math.max(1, bw - 1), y: y(u[i] + sy[i]), height: y(u[i]) - y(u[i] + sy[i])}, s);
      el('title', {}, b, `${data.runLabels[i]}: system ${fmt(sy[i])} s`);
    });
    html('p', {class: 'muted', id: 'split-note'}, s.parentNode,
      `median user ${fmt(data.split.user)} s, system ${fmt(data.split.system)} s (${fmt(100 * data.split.systemShare)} % in the kernel)`);
    return true;
  }

  function boxes(parent) {
    const g = data.groups;
    const w = Math.max(W, Math.min(3 * W, M.l + M.r + g.length * 46));
    const s = figure(parent, 'runtime per ' + (data.groupedBy || 'configuration'), 'boxes', 'runtime', w, H + 20);
    const h = H + 20;
    const vals = g.flatMap(b => [b.low, b.high, ...b.outliers]).filter(ok);
    const y = scale(Math.min(...vals), Math.max(...vals), h - M.b - 10, M.t + 6);
    axes(s, null, y, '', 'runtime s', w, h);
    const bw = (w - M.l - M.r) / g.length;
    g.forEach((b, i) => {
      const cx = M.l + (i + 0.5) * bw, half = Math.min(16, bw / 3);
      const grp = el('g', {class: 'box', 'data-key': b.key}, s);
      el('title', {}, grp, `${b.key}: median ${fmt(b.median)} s, quartiles ${fmt(b.q1)}–${fmt(b.q3)}, ${b.runs} runs`);
      el('line', {x1: cx, x2: cx, y1: y(b.low), y2: y(b.q1)}, grp);
      el('line', {x1: cx, x2: cx, y1: y(b.q3), y2: y(b.high)}, grp);
      el('line', {x1: cx - half / 2, x2: cx + half / 2, y1: y(b.low), y2: y(b.low)}, grp);
      el('line', {x1: cx - half / 2, x2: cx + half / 2, y1: y(b.high), y2: y(b.high)}, grp);
      el('rect', {x: cx - half, width: 2 * half, y: y(b.q3), height: Math.max(1, y(b.q1) - y(b.q3))}, grp);
      el('line', {class: 'box-median', x1: cx - half, x2: cx + half, y1: y(b.median), y2: y(b.median), 'stroke-width': 2}, grp);
      for (const o of b.outliers) el('circle', {class: 'outlier', cx, cy: y(o), r: 3}, grp);
      el('text', {x: cx, y: h - M.b + 4, 'text-anchor': 'middle'}, s, b.key.length > 14 ? b.key.slice(0, 13) + '…' : b.key);
    });
  }

  function table(parent, head, rows) {
    const t = html('table', {}, parent);
    const tr = html('tr', {}, t);
    head.forEach(h => html('th', {}, tr, h));
    rows.forEach(r => { const row = html('tr', {}, t); r.forEach(c => html('td', {}, row, c)); });
    return t;
  }

  document.getElementById('title').textContent = data.name;
  const host = Object.entries(data.host).map(([k, v]) => `${k} ${v}`).join(', ');
  document.getElementById('summary').textContent = `${data.runs} run${data.runs === 1 ? '' : 's'}` + (host ? ` on ${host}` : '');
  const unsupported = Object.entries(data.unsupported);
  if (unsupported.length) {
    html('p', {class: 'warn', id: 'unsupported'}, root,
      'Not counted: ' + unsupported.map(([k, v]) => `${k} (${v})`).join(', '));
  }

  const runtime = data.quantities.find(q => q.name === 'runtime');
  if (data.slowdown) {
    const c = data.slowdown;
    const measure = c.measure || 'runtime', u = c.unit === undefined ? 's' : c.unit;
    slowdown(section('Slowdown under stress',
      `Median ${measure} at each stress level over the isolated median, with its 95 % bootstrap interval; the knee is the first level past the threshold.`), c);
    table(root, ['stress', 'runs', `median ${measure === 'runtime' ? '' : measure + ' '}${u}`.trim(), 'slowdown', '95 % interval', 'stressor MB/s', 'acceptable'],
      c.levels.map(l => [l.label, l.n, fmt(l.median), '×' + fmt(l.slowdown), `${fmt(l.low)}–${fmt(l.high)}`,
        ok(l.bytesPerSecond) ? fmt(l.bytesPerSecond / 1e6) : '–', l.acceptable ? 'yes' : 'no']));
  }
  if (runtime || data.quantities.length) {
    const g = runtime && data.runs >= 3
      ? section('Runtime distribution', 'Best run on the left, worst on the right, the median marked.') : section('Distributions over the runs');
    if (runtime && data.runs >= 3) histogram(g, runtime);
    table(root, ['quantity', 'n', 'best', 'median', 'worst', 'mean', 'sd', 'q1', 'q3'],
      data.quantities.map(q => [q.name, q.n, fmt(q.min), fmt(q.median), fmt(q.max), fmt(q.mean), fmt(q.sd), fmt(q.q1), fmt(q.q3)]));
  }
  // distributions and correlations over runs need a few runs; a single imported run has its samples below
  const several = data.runs >= 3;
  if (!several) {
    html('p', {class: 'muted', id: 'few-runs'}, root, `Histograms, correlations and box plots need at least 3 runs; this campaign has ${data.runs}.`);
  }
  const others = data.quantities.filter(q => !['runtime', 'user', 'system'].includes(q.name));
  if (others.length && several) {
    const g = section('Counters and metrics', 'The same histogram for each counter and metric.');
    others.forEach(q => histogram(g, q));
  }
  const fitted = data.ranking.filter(r => data.columns[r.x].some(ok));
  if (fitted.length && runtime && several) {
    html('h2', {}, root, 'Correlation with runtime');
    table(root, ['counter', 'runs', 'r', 'R²', 'slope', 'intercept'],
      fitted.map(r => [r.x, r.n, fmt(r.r), fmt(r.r2), fmt(r.slope), fmt(r.intercept)])).id = 'ranking';
    const g = html('div', {class: 'grid'}, root);
    fitted.forEach(r => scatter(g, r));
  }
  const splitSection = section('User vs system time');
  if (!split(splitSection)) html('p', {class: 'muted'}, splitSection, 'No run gives user and system time.');
  if (data.groups.length && runtime && several) boxes(section('Runtime per ' + (data.groupedBy || 'configuration'),
    'Box: quartiles; line: median; whiskers: the most extreme runs within 1.5 × IQR; circles: outliers.'));
  // PMCTrack's per-thread view and a big vs LITTLE comparison: each metric per thread and per core type
  for (const t of data.threadMetrics || []) {
    const g = section(`${t.metric} per thread and per core type`,
      'The metric over each group\'s summed counters (bars), and the median of its samples with their quartiles (table).');
    const lines = (t.series || []).filter(x => x.time.length > 0);
    if (lines.length) {
      const w = 2 * W;
      const s = figure(g, `${t.metric} per thread over time`, 'timeline', t.metric, w, H);
      const ts = lines.flatMap(x => x.time), vs = lines.flatMap(x => x.value).filter(ok);
      const x = scale(Math.min(...ts), Math.max(...ts), M.l, w - M.r - 90);
      const y = scale(Math.min(0, ...vs), Math.max(...vs), H - M.b, M.t + 6);
      axes(s, x, y, 'time s', t.metric, w, H);
      const colours = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
      lines.forEach((l, i) => {
        const c = colours[i % colours.length];
        const pts = l.time.map((tm, k) => ok(l.value[k]) ? `${x(tm)},${y(l.value[k])}` : null).filter(p => p !== null);
        el('polyline', {class: 'series', points: pts.join(' '), fill: 'none', stroke: c, 'stroke-width': 1.5, 'data-key': l.key,
          'data-points': pts.length}, s);
        if (i < 12) el('text', {x: w - M.r - 84, y: M.t + 10 + 13 * i, style: `fill: ${c}`}, s, l.key.length > 16 ? l.key.slice(0, 15) + '…' : l.key);
      });
    }
    for (const [part, rows] of [['thread', t.threads], ['core type', t.coreTypes]]) {
      const vals = rows.map(r => r.value).filter(ok);
      if (!vals.length) continue;
      const w = Math.max(W, Math.min(3 * W, M.l + M.r + rows.length * 40));
      const s = figure(g, `${t.metric} per ${part}`, part === 'thread' ? 'threads' : 'coretypes', t.metric, w, H);
      const y = scale(0, Math.max(...vals), H - M.b, M.t + 10);
      axes(s, null, y, part, t.metric, w, H);
      const bw = (w - M.l - M.r) / rows.length;
      rows.forEach((r, i) => {
        if (!ok(r.value)) return;
        const b = el('rect', {class: 'bar', x: M.l + i * bw + 2, width: Math.max(1, bw - 4), y: y(r.value), height: H - M.b - y(r.value),
          'data-key': r.key, 'data-value': r.value}, s);
        el('title', {}, b, `${r.key}: ${fmt(r.value)} (${r.samples} samples)`);
        el('text', {x: M.l + (i + 0.5) * bw, y: H - M.b + 12, 'text-anchor': 'middle'}, s, r.key.length > 12 ? r.key.slice(0, 11) + '…' : r.key);
      });
      table(g, [part, 'samples', t.metric, 'median per sample', 'q1', 'q3'],
        rows.map(r => [r.key, r.samples, fmt(r.value), fmt(r.medianPerSample), fmt(r.q1), fmt(r.q3)]));
    }
  }
  window.__hetraceProfile = {ready: true};
})();
