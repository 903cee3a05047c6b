"""The fixed parts of the HTML report (:mod:`mopt.report`): its style sheet, the error catcher that
runs before anything else, and the script that draws the plots from the page's data.

The data (``REPORT``, written by :func:`mopt.report.render_report`) holds the evaluated designs once,
as columns (``REPORT.columns[name]``, one value per design), plus the row numbers of the front, of
the uncertain designs and of the chosen ones; the script builds every plotly trace from them, so
the numbers are not repeated per plot.

When the plots are drawn, ``<body>`` gets ``data-rendered="yes"``, ``data-points`` (the markers
of evaluated designs in the frontier plot: one per design; ``data-svg-points``: those drawn as SVG
elements), ``data-plots`` (each plot's id and trace types) and ``data-render-ms`` (milliseconds from navigation to drawn); any error goes into
``<pre id="errors">`` and ``data-errors`` (the browser tests read them from the dumped DOM).
"""

from __future__ import annotations

__all__ = ["STYLE", "ERROR_CATCHER", "PAGE_SCRIPT"]

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.5em auto;
       max-width: 1320px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; }
.lead { font-size: 1.05em; } .note { color: #555; font-size: 0.9em; }
.plot { width: 100%; height: 520px; } .plot.square { height: 700px; }
.panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 0.5em; }
.panels > div { height: 300px; min-width: 0; }
div.table { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { padding: 0.2em 0.35em; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #f5f5f5; white-space: normal; vertical-align: bottom; min-width: 3em; }
td.text, table.named td:first-child { white-space: normal; min-width: 6em; max-width: 22em; text-align: left; }
th.text, table.named th:first-child { text-align: left; }
table.run th, table.run td { text-align: left; white-space: normal; vertical-align: top; }
.ci { color: #777; font-size: 0.9em; } td .ci { display: block; }
details > summary { cursor: pointer; color: #1f5fa8; margin: 0.4em 0; }
pre.scenario { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
@media (max-width: 1000px) { table { font-size: 0.74em; } th, td { padding: 0.15em 0.25em; } }
"""

ERROR_CATCHER = """
window.__reportErrors = [];
function __reportError(message) {
  window.__reportErrors.push(String(message));
  var pre = document.getElementById('errors');
  if (pre) { pre.textContent = window.__reportErrors.join('\\n'); pre.hidden = false; }
  if (document.body) { document.body.dataset.errors = String(window.__reportErrors.length); }
}
window.addEventListener('error', function (e) { __reportError(e.message || e); });
window.addEventListener('unhandledrejection', function (e) {
  __reportError('unhandled rejection: ' + ((e.reason && e.reason.message) || e.reason));
});
"""

PAGE_SCRIPT = r"""
(function () {
  const R = REPORT, C = R.columns, n = R.n;
  const hasGL = (function () {
    try { const c = document.createElement('canvas'); return !!(c.getContext('webgl2') || c.getContext('webgl')); }
    catch (e) { return false; }
  })();
  const scatter = R.gl && hasGL ? 'scattergl' : 'scatter';
  const config = {responsive: true, displaylogo: false};
  // no toolbar over the small panels' legends, nor over the parallel coordinates' labels (they zoom nothing)
  const small = Object.assign({}, config, {displayModeBar: false});
  const pick = (name, rows) => rows.map(i => C[name][i]);
  const hover = rows => rows.map(i => R.hover_columns.map(c => C[c][i]));
  const inFront = new Uint8Array(n);
  R.front.forEach(i => { inFront[i] = 1; });
  const rest = [];
  for (let i = 0; i < n; i++) { if (!inFront[i]) rest.push(i); }
  const obj = R.objectives;
  const one = obj.length === 1;  // a single objective: the designs along x
  const xName = one ? 'design' : obj[0], yName = one ? obj[0] : obj[1];
  const axis = (k) => {
    const j = one ? 0 : k, design = one && k === 0;
    const spec = {title: {text: design ? 'design' : R.labels[j]}, type: design ? 'linear' : R.axis_types[j], zeroline: false};
    if (!design && R.log_ticks[j]) Object.assign(spec, {tickmode: 'array', tickvals: R.log_ticks[j]});  // 1, 2, 5, 10...
    return spec;
  };

  function errorBars(name, rows) {
    if (name === 'design' || rows.length > 3000) return undefined;
    const m = pick(name, rows), lo = pick(name + '_lo', rows), hi = pick(name + '_hi', rows);
    if (lo.every(v => v === null)) return undefined;
    return {type: 'data', symmetric: false, thickness: 1, width: 2, color: 'rgba(214,39,40,0.45)',
            array: m.map((v, k) => hi[k] === null ? 0 : hi[k] - v),
            arrayminus: m.map((v, k) => lo[k] === null ? 0 : v - lo[k])};
  }
  function designs(rows, name, marker, extra) {
    return Object.assign({type: scatter, mode: 'markers', name: name, meta: 'designs',
                          x: pick(xName, rows), y: pick(yName, rows), customdata: hover(rows),
                          hovertemplate: R.hovertemplate, marker: marker}, extra || {});
  }
  const frontMarker = colour => ({size: 9, color: colour, line: {width: 1, color: '#222'}});
  const frontTrace = (rows, name, colour) => designs(rows, name, frontMarker(colour),
    {error_x: errorBars(xName, rows), error_y: errorBars(yName, rows)});
  const traces = [designs(rest, 'dominated', {size: 5, color: 'rgba(110,110,110,0.45)'})];
  if (R.has_status) {  // the front by certified status (95 %): no probability is drawn
    const sure = R.front.filter(i => C.certified[i] === 'efficient');
    const open = R.front.filter(i => C.certified[i] !== 'efficient');
    if (sure.length) traces.push(frontTrace(sure, 'Pareto front: certified efficient', '#1a9850'));
    if (open.length) traces.push(frontTrace(open, 'Pareto front: undecided', '#4292c6'));
  } else {
    traces.push(frontTrace(R.front, 'Pareto front', '#d62728'));
  }
  if (R.uncertain.length) {
    traces.push({type: scatter, mode: 'markers', name: 'uncertain', meta: 'overlay',
                 x: pick(xName, R.uncertain), y: pick(yName, R.uncertain), hoverinfo: 'skip',
                 marker: {size: 14, color: 'rgba(0,0,0,0)', line: {width: 1.5, color: '#ff7f0e'}}});
  }
  const symbols = ['star', 'diamond', 'cross', 'x', 'pentagon', 'hexagon', 'triangle-up', 'square'];
  R.chosen.forEach((c, k) => traces.push({
    type: 'scatter', mode: 'markers', name: c.label, meta: 'overlay', x: [C[xName][c.row]],
    y: [C[yName][c.row]], customdata: hover([c.row]), hovertemplate: R.hovertemplate,
    marker: {size: 15, symbol: symbols[k % symbols.length], line: {width: 1, color: '#000'}}}));
  if (R.statics && !one) {
    traces.push({type: 'scatter', mode: 'markers+text', name: 'static strategies', meta: 'overlay',
                 x: R.statics.x, y: R.statics.y, text: R.statics.names, textposition: 'top right',
                 hovertemplate: '%{text}<br>' + R.labels[0] + ': %{x:,.4~g}<br>' + R.labels[1] + ': %{y:,.4~g}<extra></extra>',
                 marker: {size: 10, symbol: 'square-open', color: '#ff7f0e', line: {width: 1.5}},
                 textfont: {size: 11, color: '#8a4b00'}});
  }
  const plots = [Plotly.newPlot('frontier', traces, {
    xaxis: axis(0), yaxis: axis(1), hovermode: 'closest', margin: {t: 20},
    legend: {orientation: 'h', y: -0.15}}, config)];

  if (obj.length >= 3 && document.getElementById('splom')) {
    const colour = Array.from(inFront, f => f ? '#d62728' : 'rgba(110,110,110,0.35)');
    const all = Array.from({length: n}, (_, i) => i);
    plots.push(Plotly.newPlot('splom', [{
      type: 'splom', dimensions: obj.map((o, k) => ({label: R.labels[k], values: C[o]})),
      customdata: hover(all), hovertemplate: R.hovertemplate, showupperhalf: false,
      diagonal: {visible: false}, marker: {size: 4, color: colour}, name: 'designs'}],
      {margin: {t: 20}, dragmode: 'select', hovermode: 'closest'}, config));
    const dims = R.parcoords_objectives.map(k => ({label: R.labels[k], values: C[obj[k]]}));
    R.params.forEach((p, k) => {
      if (C[p].every(v => typeof v === 'number' || v === null)) dims.push({label: R.param_labels[k], values: C[p]});
    });
    // room for the outer axes' labels, centred on the first and last axis (~7 px a character)
    const half = d => 3.6 * d.label.replace(/&[#\w]+;/g, '_').length + 12;
    if (dims.length) {
      plots.push(Plotly.newPlot('parcoords', [{
        type: 'parcoords', dimensions: dims,
        line: {color: Array.from(inFront), cmin: 0, cmax: 1,
               colorscale: [[0, 'rgba(150,150,150,0.35)'], [1, '#d62728']]}}],
        {margin: {t: 60, b: 30, l: Math.max(60, half(dims[0])), r: Math.max(60, half(dims[dims.length - 1]))}},
        small));
    }
  }
  if (R.progress && document.getElementById('progress')) {
    // every panel's box first (so that no plot is laid out wider than its box ends up), then the
    // plots, on one shared x-range padded so that the first and last markers show whole; each
    // panel's metric names its y-axis, and the small panels have no modebar to cover their legend
    // (drag to zoom, double-click to reset, as everywhere)
    const box = document.getElementById('progress'), P = R.progress;
    const divs = P.panels.map((panel, k) => {
      const div = document.createElement('div');
      div.id = 'progress-' + k;
      box.appendChild(div);
      return div;
    });
    P.panels.forEach((panel, k) => {
      plots.push(Plotly.newPlot(divs[k], panel.series.map(s => ({
        type: 'scatter', mode: 'lines+markers', name: s.name || panel.metric, x: s.x, y: s.y})),
        {xaxis: {title: {text: P.x}, type: P.x_type, range: P.x_range, autorange: !P.x_range},
         yaxis: {title: {text: panel.metric}}, margin: {t: 30, r: 10, b: 50, l: 60},
         showlegend: panel.series.length > 1, legend: {orientation: 'h', y: 1.14, x: 0}}, small));
    });
  }
  Promise.all(plots).then(() => {
    const gd = document.getElementById('frontier');
    document.body.dataset.points = String(gd._fullData.filter(t => t.meta === 'designs')
      .reduce((s, t) => s + t.x.length, 0));
    const groups = Array.from(gd.querySelectorAll('.scatterlayer .trace'))  // SVG groups, by their trace
      .filter(g => g.__data__ && g.__data__[0] && g.__data__[0].trace.meta === 'designs');
    document.body.dataset.svgPoints = String(groups.reduce((s, g) => s + g.querySelectorAll('.point').length, 0));
    document.body.dataset.plots = Array.from(document.querySelectorAll('.js-plotly-plot'))
      .map(div => div.id + ':' + div._fullData.map(t => t.type).join(',')).join(' ');
    document.body.dataset.renderMs = String(Math.round(performance.now()));  // since navigation
    document.body.dataset.rendered = 'yes';
  }).catch(e => __reportError(e && e.message ? e.message : e));
})();
"""
