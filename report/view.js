// gridsched's interactive views: a run's time series and its schedule on
// a canvas, zoomed (wheel, +/−) and panned (drag, ←/→) along time over
// the whole run; double-click or "whole run" resets. No library, no
// network: the data sit in the page (script.view-data, JSON).
(function () {
  "use strict";
  function step(span, n) {
    var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function fmt(v, p) {
    var a = Math.abs(v);
    if (v === 0) return "0";
    if (a >= 1e9) return +(v / 1e9).toPrecision(p) + " G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(p) + " M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(p) + " k";
    return String(+v.toPrecision(p));
  }
  // ticks are about n round values in [lo, hi], labelled with as many
  // digits as make the labels distinct
  function ticks(lo, hi, n) {
    var s = step(hi - lo, n), out = [];
    for (var v = Math.ceil(lo / s) * s; v <= hi + s * 1e-9; v += s) out.push(+v.toPrecision(12));
    for (var p = 4; p <= 12; p++) {
      var seen = {}, dup = false;
      var labels = out.map(function (v) { var l = fmt(v, p); dup = dup || seen[l]; seen[l] = 1; return l; });
      if (!dup || p === 12) return out.map(function (v, i) { return [v, labels[i]]; });
    }
  }
  function View(root) {
    var data = JSON.parse(root.querySelector("script.view-data").textContent);
    var canvas = root.querySelector("canvas"), ctx = canvas.getContext("2d");
    var kind = root.getAttribute("data-kind"), fig = 0, sel = root.querySelector("select");
    var full = [data.t0, data.t1], view = full.slice(), img = null, draws = 0;
    var M = { l: 62, r: 12, t: 12, b: 40 };
    if (kind === "gantt") {
      data.jobs.forEach(function (j) { j[0] = data.t0 + j[0] * data.div; j[1] = data.t0 + j[1] * data.div; });
      img = new Image();
      img.onload = function () { draw(); };
      img.src = data.image;
    }
    if (sel) {
      data.figures.forEach(function (f, i) {
        var o = document.createElement("option");
        o.value = i; o.textContent = f.title; sel.appendChild(o);
      });
      sel.addEventListener("change", function () { fig = +sel.value; draw(); });
    }
    function dims() {
      var dpr = window.devicePixelRatio || 1, w = canvas.clientWidth || 800, h = canvas.clientHeight || 320;
      if (canvas.width !== Math.round(w * dpr)) { canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr); }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      return { w: w, h: h, pw: w - M.l - M.r, ph: h - M.t - M.b };
    }
    function X(t, d) { return M.l + (t - view[0]) / (view[1] - view[0]) * d.pw; }
    function T(px, d) { return view[0] + (px - M.l) / d.pw * (view[1] - view[0]); }
    function set(a, b) {
      var span = Math.max(Math.min(b - a, full[1] - full[0]), (full[1] - full[0]) * 1e-6);
      a = Math.max(full[0], Math.min(a, full[1] - span));
      view = [a, a + span];
      root.setAttribute("data-view", view[0] + "," + view[1]);
      draw();
    }
    function zoom(f, at) { set(at - (at - view[0]) * f, at + (view[1] - at) * f); }
    function pan(dt) { set(view[0] + dt, view[1] + dt); }
    function frame(d, ylo, yhi, ylabel) {
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, d.w, d.h);
      ctx.strokeStyle = "#ddd"; ctx.fillStyle = "#222"; ctx.lineWidth = 1;
      ctx.font = "11px 'Liberation Sans', Arial, sans-serif";
      ctx.textAlign = "center"; ctx.textBaseline = "top";
      ticks(view[0] / data.div, view[1] / data.div, 8).forEach(function (tk) {
        var x = X(tk[0] * data.div, d);
        ctx.beginPath(); ctx.moveTo(x, M.t); ctx.lineTo(x, M.t + d.ph); ctx.stroke();
        ctx.fillText(tk[1], x, M.t + d.ph + 4);
      });
      ctx.fillText("time (" + data.unit + ")", M.l + d.pw / 2, M.t + d.ph + 20);
      ctx.textAlign = "right"; ctx.textBaseline = "middle";
      ticks(ylo, yhi, 5).forEach(function (tk) {
        var y = M.t + d.ph - (tk[0] - ylo) / (yhi - ylo) * d.ph;
        if (y < M.t - 1 || y > M.t + d.ph + 1) return;
        ctx.beginPath(); ctx.moveTo(M.l, y); ctx.lineTo(M.l + d.pw, y); ctx.stroke();
        ctx.fillText(tk[1], M.l - 4, y);
      });
      ctx.save(); ctx.translate(12, M.t + d.ph / 2); ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "center"; ctx.fillText(ylabel, 0, 0); ctx.restore();
      ctx.strokeStyle = "#000"; ctx.strokeRect(M.l, M.t, d.pw, d.ph);
    }
    function drawSeries(d) {
      var f = data.figures[fig], lo = 0, hi = 0;
      f.lines.forEach(function (ln) {
        each(ln, function (a, b, l, h) { if (b >= view[0] && a <= view[1]) { lo = Math.min(lo, l); hi = Math.max(hi, h); } });
      });
      if (hi <= lo) hi = lo + 1;
      hi += (hi - lo) * 0.04;
      frame(d, lo, hi, f.ylabel);
      var Y = function (v) { return M.t + d.ph - (v - lo) / (hi - lo) * d.ph; };
      ctx.save(); ctx.beginPath(); ctx.rect(M.l, M.t, d.pw, d.ph); ctx.clip();
      f.lines.forEach(function (ln, i) {
        var c = data.colors[i % data.colors.length];
        if (ln.t) {
          ctx.strokeStyle = c; ctx.lineWidth = 1.3; ctx.beginPath();
          var started = false;
          for (var k = 0; k < ln.t.length; k++) {
            if (k + 1 < ln.t.length && ln.t[k + 1] < view[0]) continue;
            var x = X(ln.t[k], d);
            if (!started) { ctx.moveTo(x, Y(ln.y[k])); started = true; } else { ctx.lineTo(x, Y(ln.y[k - 1])); ctx.lineTo(x, Y(ln.y[k])); }
            if (ln.t[k] > view[1]) break;
          }
          ctx.stroke();
          return;
        }
        ctx.fillStyle = c; ctx.globalAlpha = 0.25; ctx.beginPath();
        var top = [], bot = [];
        for (var j = 0; j < ln.mean.length; j++) {
          var a = ln.b0 + j * ln.dt, b = a + ln.dt;
          if (ln.lo[j] === null || b < view[0] || a > view[1]) continue;
          top.push([X(a, d), Y(ln.hi[j])], [X(b, d), Y(ln.hi[j])]);
          bot.push([X(a, d), Y(ln.lo[j])], [X(b, d), Y(ln.lo[j])]);
        }
        var poly = top.concat(bot.reverse());
        poly.forEach(function (p, k) { if (k) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
        ctx.fill(); ctx.globalAlpha = 1;
        ctx.strokeStyle = c; ctx.lineWidth = 1.3; ctx.beginPath();
        var first = true;
        for (j = 0; j < ln.mean.length; j++) {
          var m = ln.b0 + (j + 0.5) * ln.dt;
          if (ln.mean[j] === null || m + ln.dt < view[0] || m - ln.dt > view[1]) continue;
          if (first) ctx.moveTo(X(m, d), Y(ln.mean[j])); else ctx.lineTo(X(m, d), Y(ln.mean[j]));
          first = false;
        }
        ctx.stroke();
      });
      ctx.restore();
      legend(f.lines.map(function (l) { return l.name; }));
    }
    // each calls fn(start, end, low, high) for every sample or bucket
    function each(ln, fn) {
      if (ln.t) {
        for (var k = 0; k < ln.t.length; k++) fn(ln.t[k], k + 1 < ln.t.length ? ln.t[k + 1] : ln.t[k], ln.y[k], ln.y[k]);
        return;
      }
      for (var j = 0; j < ln.mean.length; j++) if (ln.lo[j] !== null) fn(ln.b0 + j * ln.dt, ln.b0 + (j + 1) * ln.dt, ln.lo[j], ln.hi[j]);
    }
    function legend(names) {
      var box = root.querySelector(".view-legend");
      if (!box || box.getAttribute("data-fig") === String(fig)) return;
      box.setAttribute("data-fig", String(fig));
      box.textContent = "";
      names.forEach(function (n, i) {
        var s = document.createElement("span");
        s.style.borderTop = "3px solid " + data.colors[i % data.colors.length];
        s.textContent = n || "value";
        box.appendChild(s);
      });
    }
    function drawGantt(d) {
      frame(d, 0, data.nodes, "node (index)");
      var Yn = function (n) { return M.t + d.ph - n / data.nodes * d.ph; };
      ctx.save(); ctx.beginPath(); ctx.rect(M.l, M.t, d.pw, d.ph); ctx.clip();
      if (img && img.complete && img.naturalWidth) {
        var sx = (view[0] - data.t0) / (data.t1 - data.t0) * data.cols, sw = (view[1] - view[0]) / (data.t1 - data.t0) * data.cols;
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(img, sx, 0, Math.max(sw, 1e-3), data.rows, M.l, M.t, d.pw, d.ph);
      }
      var visible = [];
      for (var i = 0; i < data.jobs.length; i++) {
        var j = data.jobs[i];
        if (j[1] >= view[0] && j[0] <= view[1]) visible.push(i);
      }
      var drawn = 0;
      if (visible.length <= 5000) {
        visible.forEach(function (i) {
          var j = data.jobs[i], x0 = X(Math.max(j[0], view[0]), d), x1 = X(Math.min(j[1], view[1]), d);
          ctx.fillStyle = data.colors[i % data.colors.length];
          for (var k = 2; k + 1 < j.length; k += 2) {
            var y0 = Yn(j[k + 1] + 1), y1 = Yn(j[k]);
            ctx.globalAlpha = 0.8; ctx.fillRect(x0, y0, Math.max(x1 - x0, 0.5), Math.max(y1 - y0, 0.5));
            ctx.globalAlpha = 1; ctx.strokeStyle = "rgba(0,0,0,0.5)"; ctx.lineWidth = 0.5;
            if (x1 - x0 > 3) ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
            drawn++;
          }
        });
      }
      ctx.restore();
      root.setAttribute("data-jobs-drawn", String(drawn));
      var note = root.querySelector(".view-note");
      if (note) note.textContent = visible.length > 5000 ? visible.length + " jobs in view: zoom in to see them one by one" : drawn ? drawn + " job rectangles in view" : "";
    }
    function draw() {
      var d = dims();
      if (kind === "gantt") drawGantt(d); else drawSeries(d);
      draws++;
      root.setAttribute("data-draws", String(draws));
    }
    canvas.addEventListener("wheel", function (e) {
      e.preventDefault();
      var d = dims(), r = canvas.getBoundingClientRect();
      zoom(e.deltaY > 0 ? 1.25 : 0.8, T(e.clientX - r.left, d));
    }, { passive: false });
    var dragX = null;
    canvas.addEventListener("mousedown", function (e) { dragX = e.clientX; });
    window.addEventListener("mousemove", function (e) {
      if (dragX === null) return;
      var d = dims(), dx = e.clientX - dragX;
      dragX = e.clientX;
      pan(-dx / d.pw * (view[1] - view[0]));
    });
    window.addEventListener("mouseup", function () { dragX = null; });
    canvas.addEventListener("dblclick", function () { set(full[0], full[1]); });
    root.addEventListener("keydown", function (e) {
      var s = view[1] - view[0], mid = (view[0] + view[1]) / 2;
      if (e.key === "ArrowLeft") pan(-s / 10); else if (e.key === "ArrowRight") pan(s / 10);
      else if (e.key === "+" || e.key === "=") zoom(0.8, mid); else if (e.key === "-") zoom(1.25, mid);
      else return;
      e.preventDefault();
    });
    root.querySelectorAll("button[data-act]").forEach(function (b) {
      b.addEventListener("click", function () {
        var a = b.getAttribute("data-act"), s = view[1] - view[0], mid = (view[0] + view[1]) / 2;
        if (a === "in") zoom(0.5, mid); else if (a === "out") zoom(2, mid);
        else if (a === "left") pan(-s / 4); else if (a === "right") pan(s / 4); else set(full[0], full[1]);
      });
    });
    window.addEventListener("resize", draw);
    set(full[0], full[1]);
  }
  document.querySelectorAll(".view").forEach(function (el) { View(el); });
})();
