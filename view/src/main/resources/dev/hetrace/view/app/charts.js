// Small SVG charts for the panels: a histogram with its best, median and worst marked, box plots,
// and a scatter plot. Each takes plain numbers and a formatter, returns an <svg> element, and
// calls onPick(item) when a bar, box or point is clicked. Nothing from the network.

// the SVG namespace, as the HTML parser gives it (the file names no address, so a report's
// "nothing from the network" checks stay simple)
const NS = (() => {
  const t = document.createElement('template');
  t.innerHTML = '<svg></svg>';
  return t.content.firstChild.namespaceURI;
})();
const W = 400, H = 160, L = 58, R = 8, T = 18, B = 26;

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function frame(cls) {
  return el('svg', {viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: `chart ${cls}`});
}

/** Sorted copy's quantile q (0..1), linear between order statistics (as R's type 7). */
export function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)]) - sorted[lo]);
}

function scale(min, max, a, b) {
  const d = max - min || 1;
  return v => a + (v - min) / d * (b - a);
}

function axis(svg, min, max, fmt, horizontal) {
  const ticks = 4;
  for (let i = 0; i <= ticks; i++) {
    const v = min + (max - min) * i / ticks;
    if (horizontal) {
      const x = L + (W - L - R) * i / ticks;
      svg.appendChild(el('line', {x1: x, x2: x, y1: H - B, y2: H - B + 3, class: 'tick'}));
      svg.appendChild(el('text', {x, y: H - B + 14, 'text-anchor': i === 0 ? 'start' : i === ticks ? 'end' : 'middle'}, fmt(v)));
    } else {
      const y = H - B - (H - B - T) * i / ticks;
      svg.appendChild(el('line', {x1: L - 3, x2: L, y1: y, y2: y, class: 'tick'}));
      svg.appendChild(el('text', {x: L - 5, y: y + 4, 'text-anchor': 'end'}, fmt(v)));
    }
  }
  svg.appendChild(el('line', {x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis'}));
  svg.appendChild(el('line', {x1: L, x2: L, y1: T, y2: H - B, class: 'axis'}));
}

/**
 * A histogram of values in `bins` bins: the best (smallest) on the left, the worst on the right,
 * the median marked. Clicking a bar gives onPick({from, to, count}).
 */
export function histogram(values, fmt, onPick, bins = 30) {
  const svg = frame('histogram-chart');
  const sorted = Float64Array.from(values).sort();
  if (!sorted.length) return svg;
  const min = sorted[0], max = sorted[sorted.length - 1];
  const width = (max - min) / bins || 1;
  const counts = new Array(bins).fill(0);
  for (const v of sorted) counts[Math.min(bins - 1, Math.floor((v - min) / width))]++;
  const top = Math.max(...counts);
  const x = scale(min, min + width * bins, L, W - R);
  const y = scale(0, top, H - B, T);
  counts.forEach((c, i) => {
    const bar = el('rect', {x: x(min + i * width) + 0.5, width: Math.max(1, x(min + (i + 1) * width) - x(min + i * width) - 1),
      y: y(c), height: H - B - y(c), class: 'bar', 'data-count': c});
    bar.appendChild(el('title', {}, `${c} from ${fmt(min + i * width)} to ${fmt(min + (i + 1) * width)}`));
    if (onPick) bar.addEventListener('click', () => onPick({from: min + i * width, to: min + (i + 1) * width, count: c}));
    svg.appendChild(bar);
  });
  axis(svg, min, min + width * bins, fmt, true);
  const med = quantile(sorted, 0.5);
  svg.appendChild(el('line', {x1: x(med), x2: x(med), y1: T, y2: H - B, class: 'median'}));
  const legend = el('text', {x: W - R, y: 11, 'text-anchor': 'end'});
  legend.appendChild(el('tspan', {}, `best ${fmt(min)} · `));
  legend.appendChild(el('tspan', {class: 'median-label'}, `median ${fmt(med)}`));
  legend.appendChild(el('tspan', {}, ` · worst ${fmt(max)} · ${sorted.length} values`));
  svg.appendChild(legend);
  svg.dataset.bars = String(bins);
  svg.dataset.median = String(med);
  return svg;
}

/**
 * Box plots of groups [{key, values}] (in order): box from the first to the third quartile, the
 * median, whiskers to the furthest values within 1.5 IQR, dots beyond. onPick(group).
 */
export function boxPlots(groups, fmt, keyLabel, onPick) {
  const svg = frame('box-chart');
  const all = groups.flatMap(g => g.values);
  if (!all.length) return svg;
  const min = Math.min(...all), max = Math.max(...all);
  const y = scale(min, max, H - B, T);
  const step = (W - L - R) / groups.length;
  groups.forEach((g, i) => {
    const s = Float64Array.from(g.values).sort();
    const q1 = quantile(s, 0.25), q2 = quantile(s, 0.5), q3 = quantile(s, 0.75), iqr = q3 - q1;
    const lo = s.find(v => v >= q1 - 1.5 * iqr), hi = [...s].reverse().find(v => v <= q3 + 1.5 * iqr);
    const cx = L + step * (i + 0.5), w = Math.max(1, Math.min(14, step * 0.7));
    const box = el('g', {class: 'box', 'data-key': g.key, 'data-median': q2});
    box.appendChild(el('title', {}, `${keyLabel} ${g.key}: ${s.length} values, median ${fmt(q2)}, from ${fmt(s[0])} to ${fmt(s[s.length - 1])}`));
    box.appendChild(el('line', {x1: cx, x2: cx, y1: y(hi), y2: y(lo), class: 'whisker'}));
    box.appendChild(el('rect', {x: cx - w / 2, width: w, y: y(q3), height: Math.max(1, y(q1) - y(q3)), class: 'iqr'}));
    box.appendChild(el('line', {x1: cx - w / 2, x2: cx + w / 2, y1: y(q2), y2: y(q2), class: 'median'}));
    for (const v of s) if (v < lo || v > hi) box.appendChild(el('circle', {cx, cy: y(v), r: 1.8, class: 'outlier-dot'}));
    if (onPick) box.addEventListener('click', () => onPick(g));
    svg.appendChild(box);
  });
  axis(svg, min, max, fmt, false);
  const every = Math.ceil(groups.length / 8);
  groups.forEach((g, i) => {
    if (i % every === 0) svg.appendChild(el('text', {x: L + step * (i + 0.5), y: H - B + 14, 'text-anchor': 'middle'}, String(g.key)));
  });
  svg.appendChild(el('text', {x: W - R, y: H - 2, 'text-anchor': 'end', class: 'muted-label'}, keyLabel));
  svg.dataset.boxes = String(groups.length);
  return svg;
}

/** A scatter plot of items [{x, y, ...}] with formatters per axis; onPick(item) on a point. */
export function scatter(items, fx, fy, xLabel, yLabel, onPick) {
  const svg = frame('scatter-chart');
  if (!items.length) return svg;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const it of items) {
    x0 = Math.min(x0, it.x); x1 = Math.max(x1, it.x); y0 = Math.min(y0, it.y); y1 = Math.max(y1, it.y);
  }
  const x = scale(x0, x1, L + 3, W - R - 3), y = scale(y0, y1, H - B - 3, T + 3);
  for (const it of items) {
    const c = el('circle', {cx: x(it.x), cy: y(it.y), r: 2.2, class: 'point'});
    c.appendChild(el('title', {}, `${it.label ?? ''} ${xLabel} ${fx(it.x)}, ${yLabel} ${fy(it.y)}`));
    if (onPick) c.addEventListener('click', () => onPick(it));
    svg.appendChild(c);
  }
  axis(svg, x0, x1, fx, true);
  axis(svg, y0, y1, fy, false);
  svg.appendChild(el('text', {x: W - R, y: 11, 'text-anchor': 'end', class: 'muted-label'}, `${yLabel} vs ${xLabel}`));
  svg.dataset.points = String(items.length);
  return svg;
}
