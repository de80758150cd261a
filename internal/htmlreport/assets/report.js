// Draws the report's charts (the JSON in #mb-charts) with uPlot: drag
// across a chart to zoom, double-click to zoom out, hover for the values
// in the legend, click a legend entry to hide or show its series.
(function () {
  "use strict";
  var specs = JSON.parse(document.getElementById("mb-charts").textContent);
  var charts = [];
  window.mongobenchCharts = charts; // for the browser checks

  function num(v) {
    if (v == null || !isFinite(v)) return "\u2014";
    var a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString("en-US");
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v.toPrecision(3);
  }
  // x = 1/(1-p) shown as the percentile p.
  function percentile(x) {
    if (x == null || !isFinite(x) || x < 1) return "\u2014";
    var digits = Math.max(0, Math.ceil(Math.log10(x) - 1e-9) - 2);
    return (100 * (1 - 1 / x)).toFixed(digits) + "%";
  }
  function isPow10(x) {
    var l = Math.log10(x);
    return Math.abs(l - Math.round(l)) < 1e-9;
  }
  function shade(spans) {
    return function (u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = "rgba(255,160,40,0.25)";
      spans.forEach(function (s) {
        var x0 = Math.max(u.valToPos(s[0], "x", true), u.bbox.left);
        var x1 = Math.min(u.valToPos(s[1], "x", true), u.bbox.left + u.bbox.width);
        if (x1 > x0) ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
      });
      ctx.restore();
    };
  }

  specs.forEach(function (s, i) {
    var el = document.querySelector('[data-chart="' + i + '"]');
    if (!el) return;
    var nines = s.xAxis === "nines";
    var series = [{ label: s.xLabel, value: function (u, v) { return nines ? percentile(v) : num(v); } }];
    s.series.forEach(function (ser) {
      series.push({
        label: ser.label,
        stroke: ser.color,
        width: ser.dash ? 1.5 : 2,
        dash: ser.dash ? [6, 4] : undefined,
        spanGaps: false,
        points: ser.points ? { show: true, size: 6, fill: ser.color } : { show: false },
        value: function (u, v) { return v == null ? "\u2014" : num(v) + (ser.unit ? " " + ser.unit : ""); }
      });
    });
    var xAxis = { label: s.xLabel, space: 60 };
    if (nines) {
      xAxis.values = function (u, splits) {
        return splits.map(function (v) { return isPow10(v) ? percentile(v) : ""; });
      };
    }
    var opts = {
      title: s.title,
      width: Math.max(el.clientWidth, 320),
      height: s.height || 320,
      scales: {
        x: nines ? { time: false, distr: 3, log: 10 } : { time: false },
        y: s.yLog ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [Math.min(0, min), max > 0 ? max * 1.05 : 1]; } }
      },
      axes: [xAxis, { label: s.yLabel, size: 70 }],
      series: series,
      cursor: { drag: { x: true, y: false }, sync: s.sync ? { key: s.sync } : undefined },
      legend: { live: true },
      hooks: s.shade && s.shade.length ? { drawClear: [shade(s.shade)] } : {}
    };
    var data = [s.x].concat(s.series.map(function (ser) { return ser.y; }));
    charts.push(new uPlot(opts, data, el));
  });

  var pending = null;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.forEach(function (u) {
        var w = Math.max(u.root.parentNode.clientWidth, 320);
        u.setSize({ width: w, height: u.height });
      });
    }, 100);
  });
})();
