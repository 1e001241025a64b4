package cli

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// domCheckJS runs in a report page (after its fonts have loaded) and
// checks every figure from the SVG DOM: the box of every text element
// (getBBox, mapped to the page by its transform) must lie inside its
// figure; no two tick labels of one axis may read the same; no two
// pieces of text may overlap; a raster (<image>) must fill its box; and
// the page, every fold open, must be no wider than the window (a table of
// long hashes overflowed it). It counts the figures a reader sees
// without unfolding anything (then unfolds every <details> to measure
// the folded ones too) and replaces the page by its findings as JSON.
const domCheckJS = `
(function () {
  function box(svg, el) {
    var b = el.getBBox(), m = el.getScreenCTM(), xs = [], ys = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(function (p) {
      var q = svg.createSVGPoint(); q.x = p[0]; q.y = p[1]; q = q.matrixTransform(m); xs.push(q.x); ys.push(q.y);
    });
    return { l: Math.min.apply(null, xs), r: Math.max.apply(null, xs), t: Math.min.apply(null, ys), b: Math.max.apply(null, ys), w: b.width };
  }
  function check() {
    var out = { figures: 0, visible: 0, constant: 0, texts: 0, unmarked: 0, problems: [] };
    var figs = Array.prototype.slice.call(document.querySelectorAll("svg.fig"));
    figs.forEach(function (svg) { var d = svg.closest("details"); if (!d || d.open) out.visible++; });
    out.constant = document.querySelectorAll("p.constant").length;
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
    var de = document.documentElement;
    if (de.scrollWidth > de.clientWidth + 1) {
      var wide = Array.prototype.slice.call(document.querySelectorAll("table")).filter(function (t) { return t.getBoundingClientRect().right > de.clientWidth + 1; });
      out.problems.push("the page is " + de.scrollWidth + " px wide in a " + de.clientWidth + " px window" + (wide.length ? " (" + wide.length + " tables overflow)" : ""));
    }
    figs.forEach(function (svg) {
      out.figures++;
      var host = svg.closest("figure"), id = host && host.id ? host.id : "figure " + out.figures;
      var sr = svg.getBoundingClientRect(), ticks = { "x-tick": {}, "y-tick": {} }, pieces = [];
      svg.querySelectorAll("text").forEach(function (tx) {
        out.texts++;
        var r = box(svg, tx), tol = 0.75, cls = tx.getAttribute("class") || "";
        if (r.w > 0 && (r.l < sr.left - tol || r.r > sr.right + tol || r.t < sr.top - tol || r.b > sr.bottom + tol))
          out.problems.push(id + ": text \"" + tx.textContent + "\" lies outside the figure");
        if (cls.indexOf("t-") !== 0) { out.unmarked++; return; }
        var role = cls.slice(2), g = tx.getAttribute("data-g");
        if (ticks[role]) ticks[role][g] = (ticks[role][g] === undefined ? "" : ticks[role][g] + " / ") + tx.textContent;
        if (r.w > 0) pieces.push({ g: g, r: r, text: tx.textContent });
      });
      svg.querySelectorAll("image").forEach(function (im) {
        if (im.getAttribute("preserveAspectRatio") !== "none")
          out.problems.push(id + ": a raster keeps its own aspect ratio instead of filling its box");
      });
      Object.keys(ticks).forEach(function (role) {
        var seen = {};
        Object.keys(ticks[role]).forEach(function (g) {
          var label = ticks[role][g];
          if (seen[label]) out.problems.push(id + ": two " + role + " labels read \"" + label + "\"");
          seen[label] = true;
        });
      });
      for (var i = 0; i < pieces.length; i++) for (var j = i + 1; j < pieces.length; j++) {
        var a = pieces[i], b = pieces[j];
        if (a.g === b.g) continue;
        var ox = Math.min(a.r.r, b.r.r) - Math.max(a.r.l, b.r.l), oy = Math.min(a.r.b, b.r.b) - Math.max(a.r.t, b.r.t);
        if (ox > 1 && oy > 1) out.problems.push(id + ": \"" + a.text + "\" overlaps \"" + b.text + "\"");
      }
    });
    var pre = document.createElement("pre");
    pre.id = "dom-check";
    pre.textContent = JSON.stringify(out);
    document.body.innerHTML = "";
    document.body.appendChild(pre);
  }
  window.addEventListener("load", function () { document.fonts.ready.then(check); });
})();
`

// domReport is what domCheckJS found.
type domReport struct {
	Figures, Visible, Constant, Texts, Unmarked int
	Problems                                    []string
}

var preOut = regexp.MustCompile(`(?s)<pre id="([a-z-]+)">(.*?)</pre>`)

// chromiumDOM loads page with script appended to its body in headless
// Chromium and returns the text of the <pre> the script leaves (the page
// as Chromium's DOM holds it after the script ran).
func chromiumDOM(t *testing.T, bin, page, script string) string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.LastIndex(s, "</body>")
	if i < 0 {
		t.Fatalf("%s: no </body>", page)
	}
	probe := filepath.Join(filepath.Dir(page), "probe-"+filepath.Base(page))
	if err := os.WriteFile(probe, []byte(s[:i]+"<script>"+script+"</script>"+s[i:]), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
		"--user-data-dir="+t.TempDir(), "--window-size=1400,1600", "--virtual-time-budget=30000",
		"--dump-dom", "file://"+probe)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := preOut.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%s: the page script left no result (%d bytes of DOM)\n%s", page, len(out), stderr.String())
	}
	return html.UnescapeString(m[2])
}

// domCheck runs domCheckJS on page.
func domCheck(t *testing.T, bin, page string) domReport {
	t.Helper()
	var r domReport
	if err := json.Unmarshal([]byte(chromiumDOM(t, bin, page, domCheckJS)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// requireDOM fails on every problem domCheck found, and when it measured
// fewer than minFigures figures or found text without a role.
func requireDOM(t *testing.T, what string, r domReport, minFigures int) {
	t.Helper()
	if r.Figures < minFigures || r.Texts == 0 {
		t.Errorf("%s: %d figures, %d texts measured; want at least %d figures", what, r.Figures, r.Texts, minFigures)
	}
	if r.Unmarked > 0 {
		t.Errorf("%s: %d text elements carry no role (t-title, t-x-tick, …)", what, r.Unmarked)
	}
	for i, p := range r.Problems {
		if i == 30 {
			t.Errorf("%s: … and %d more problems", what, len(r.Problems)-30)
			break
		}
		t.Errorf("%s: %s", what, p)
	}
}

// TestDOMCheckSeesProblems: the checker is not blind. A figure with a
// text outside its box, two equal y tick labels, and two overlapping
// labels gives three problems; a clean one none.
func TestDOMCheckSeesProblems(t *testing.T) {
	bin := chromiumOrSkip(t)
	dir := t.TempDir()
	svg := func(texts string) string {
		return `<figure id="f"><svg class="fig" style="width:400px;height:200px" viewBox="0 0 400 200" xmlns="http://www.w3.org/2000/svg">` + texts + `</svg></figure>`
	}
	bad := svg(`<text class="t-title" data-g="1" x="-30" y="20" font-size="12">cut title</text>` +
		`<text class="t-y-tick" data-g="2" x="30" y="60" font-size="10">3.423 M</text>` +
		`<text class="t-y-tick" data-g="3" x="30" y="90" font-size="10">3.423 M</text>` +
		`<text class="t-legend" data-g="4" x="200" y="150" font-size="10">alpha</text>` +
		`<text class="t-legend" data-g="5" x="205" y="152" font-size="10">beta</text>` +
		`<image x="10" y="100" width="300" height="50" href="data:image/png;base64,iVBORw0KGgo="/>`)
	good := svg(`<text class="t-title" data-g="1" x="150" y="20" font-size="12">title</text>` +
		`<text class="t-y-tick" data-g="2" x="30" y="60" font-size="10">3.4225 M</text>` +
		`<text class="t-y-tick" data-g="3" x="30" y="90" font-size="10">3.423 M</text>`)
	// closed folds still count and are measured
	page := filepath.Join(dir, "p.html")
	wide := `<table><tr><td>` + strings.Repeat("x", 400) + `</td></tr></table>`
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body>`+good+`<details><summary>more</summary>`+bad+wide+`</details></body></html>`), 0o644)
	r := domCheck(t, bin, page)
	if r.Figures != 2 || r.Visible != 1 || len(r.Problems) != 5 {
		t.Fatalf("checker: %d figures (%d visible), problems %q; want 2 (1), 5 problems", r.Figures, r.Visible, r.Problems)
	}
	for i, want := range []string{"1 tables overflow", "outside the figure", "raster keeps its own aspect ratio", "two y-tick labels", "overlaps"} {
		if !strings.Contains(r.Problems[i], want) {
			t.Errorf("problem %d: %q, want %q", i, r.Problems[i], want)
		}
	}
}

// chromiumOrSkip finds Chromium, or skips (fails with
// GRIDSCHED_REQUIRE_BROWSER=1, as CI sets).
func chromiumOrSkip(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("GRIDSCHED_REQUIRE_BROWSER") == "1" {
			t.Fatal("chromium not found and GRIDSCHED_REQUIRE_BROWSER=1")
		}
		t.Skip("chromium not installed (CI installs it)")
	}
	return bin
}

// viewTestJS drives the interactive views of a single-run page as a
// reader would (wheel, drag, keys, buttons, double-click) and reports
// the time window each shows after each step, and how much it drew.
const viewTestJS = `
(function () {
  function run() {
    var out = [];
    document.querySelectorAll(".view").forEach(function (v) {
      var c = v.querySelector("canvas"), r = c.getBoundingClientRect(), res = { kind: v.getAttribute("data-kind"), steps: [] };
      function state(what) {
        var w = (v.getAttribute("data-view") || "").split(",").map(Number);
        var px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, ink = 0;
        for (var i = 0; i < px.length; i += 16) if (px[i] < 200 || px[i + 1] < 200 || px[i + 2] < 200) ink++;
        res.steps.push({ what: what, from: w[0], to: w[1], ink: ink, jobs: +(v.getAttribute("data-jobs-drawn") || 0) });
      }
      var x = r.left + r.width * 0.6, y = r.top + r.height / 2;
      state("load");
      for (var k = 0; k < 12; k++) c.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: x, clientY: y, bubbles: true, cancelable: true }));
      state("wheel in");
      c.dispatchEvent(new MouseEvent("mousedown", { clientX: x, clientY: y, bubbles: true }));
      window.dispatchEvent(new MouseEvent("mousemove", { clientX: x - 200, clientY: y, bubbles: true }));
      window.dispatchEvent(new MouseEvent("mouseup", { clientX: x - 200, clientY: y, bubbles: true }));
      state("drag left");
      v.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft", bubbles: true }));
      state("key left");
      v.querySelector("button[data-act=out]").click();
      state("button out");
      c.dispatchEvent(new MouseEvent("dblclick", { clientX: x, clientY: y, bubbles: true }));
      state("double-click");
      var sel = v.querySelector("select");
      if (sel && sel.options.length > 1) { sel.value = "1"; sel.dispatchEvent(new Event("change")); state("select"); res.options = sel.options.length; }
      out.push(res);
    });
    var pre = document.createElement("pre");
    pre.id = "view-test";
    pre.textContent = JSON.stringify(out);
    document.body.innerHTML = "";
    document.body.appendChild(pre);
  }
  window.addEventListener("load", function () { setTimeout(run, 200); });
})();
`

type viewStep struct {
	What     string
	From, To float64
	Ink      int
	Jobs     int
}

type viewResult struct {
	Kind    string
	Steps   []viewStep
	Options int
}

// checkViews drives the page's views and checks that each zooms, pans
// and resets, draws something at every step, and that the schedule,
// zoomed in, draws jobs one by one.
func checkViews(t *testing.T, bin, page string) []viewResult {
	t.Helper()
	var res []viewResult
	if err := json.Unmarshal([]byte(chromiumDOM(t, bin, page, viewTestJS)), &res); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, v := range res {
		kinds[v.Kind] = true
		s := map[string]viewStep{}
		for _, st := range v.Steps {
			s[st.What] = st
			if st.Ink == 0 {
				t.Errorf("%s view: nothing drawn after %s", v.Kind, st.What)
			}
		}
		full := s["load"].To - s["load"].From
		span := func(w string) float64 { return s[w].To - s[w].From }
		if !(full > 0) || !(span("wheel in") < full/5) {
			t.Errorf("%s view: wheel zoom: window %g of %g", v.Kind, span("wheel in"), full)
		}
		if !(s["drag left"].From > s["wheel in"].From) || math.Abs(span("drag left")-span("wheel in")) > 1e-9*full {
			t.Errorf("%s view: dragging left did not move the window later (%g → %g)", v.Kind, s["wheel in"].From, s["drag left"].From)
		}
		if !(s["key left"].From < s["drag left"].From) {
			t.Errorf("%s view: ← did not move the window earlier", v.Kind)
		}
		if !(span("button out") > span("key left")*1.5) {
			t.Errorf("%s view: the zoom-out button did not widen the window", v.Kind)
		}
		if s["double-click"].From != s["load"].From || s["double-click"].To != s["load"].To {
			t.Errorf("%s view: double-click did not reset to the whole run", v.Kind)
		}
		if v.Kind == "gantt" && s["wheel in"].Jobs == 0 {
			t.Errorf("gantt view: zoomed in, no job drawn")
		}
		if v.Kind == "series" && v.Options < 2 {
			t.Errorf("series view: %d figures to choose from", v.Options)
		}
	}
	if !kinds["series"] || !kinds["gantt"] {
		t.Errorf("views found: %v; want a series and a gantt view", kinds)
	}
	return res
}
