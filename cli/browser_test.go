package cli

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

// chromium runs headless Chromium on a local file: it returns the console
// messages it logged and writes a screenshot.
func chromium(t *testing.T, bin, page, shot string) string {
	return chromiumSized(t, bin, page, shot, "1400,1600")
}

// chromiumSized is chromium with a window size ("W,H"): a tall window
// screenshots more of a long report.
func chromiumSized(t *testing.T, bin, page, shot, size string) string {
	t.Helper()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--window-size="+size, "--screenshot="+shot, "file://"+page)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	return string(out)
}

// consoleErrors returns the console lines that report errors.
func consoleErrors(log string) []string {
	var errs []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, ":CONSOLE") && (strings.Contains(l, "Error") || strings.Contains(l, "Uncaught") || strings.Contains(l, "boom")) {
			errs = append(errs, l)
		}
	}
	return errs
}

// decodePNG reads the PNG image at path (a screenshot).
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// nonBlank reports the fraction of pixels that are not the background.
func nonBlank(t *testing.T, path string) float64 {
	t.Helper()
	img := decodePNG(t, path)
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgG, bb, _ := bg.RGBA()
	other := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != br || g != bgG || bl != bb {
				other++
			}
		}
	}
	return float64(other) / float64((b.Dx()/2)*(b.Dy()/2))
}

// coloured reports the fraction of pixels with a clear hue (figures'
// lines, markers and boxes; text and rules are grey).
func coloured(t *testing.T, path string) float64 {
	t.Helper()
	img := decodePNG(t, path)
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl), min(r, g, bl)
			if hi-lo > 40*257 {
				n++
			}
		}
	}
	return float64(n) / float64((b.Dx()/2)*(b.Dy()/2))
}

// TestReportInBrowser opens the quick reproduction's report, a single
// run's report and a comparison of three runs in headless Chromium: no
// console errors, screenshots that are not blank, and the DOM checks of
// every figure (domCheck: no text outside its figure, no two equal tick
// labels on an axis, no overlapping text), folded figures included; the
// quick report shows at most 60 figures before anything is unfolded; the
// single run's interactive views zoom, pan and reset. It is skipped when
// Chromium is missing unless GRIDSCHED_REQUIRE_BROWSER=1 (CI installs
// Chromium and sets it). GRIDSCHED_SCREENSHOTS=DIR keeps the screenshots
// and, for a reviewer, sheets of every figure as Chromium draws them.
func TestReportInBrowser(t *testing.T) {
	bin := chromiumOrSkip(t)
	testenv.TracesDir(t)
	dir := t.TempDir()
	keep := os.Getenv("GRIDSCHED_SCREENSHOTS")
	// The detector must see an error when there is one, and a page
	// that draws nothing is blank (one Chromium run checks both: each
	// run costs seconds of CPU).
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>`), 0o644)
	if errs := consoleErrors(chromium(t, bin, bad, filepath.Join(dir, "bad.png"))); len(errs) == 0 {
		t.Fatal("a console error on a test page was not detected: the check is blind")
	}
	if f := nonBlank(t, filepath.Join(dir, "bad.png")); f > 0.001 {
		t.Fatalf("an empty page is %.3f non-blank: the check is blind", f)
	}
	// A page of text has no coloured figure pixels.
	text := filepath.Join(dir, "text.html")
	os.WriteFile(text, []byte(`<!DOCTYPE html><html><body><h1>Title</h1><p>`+strings.Repeat("words and more words ", 300)+`</p></body></html>`), 0o644)
	chromium(t, bin, text, filepath.Join(dir, "text.png"))
	if f := coloured(t, filepath.Join(dir, "text.png")); f > 0.001 {
		t.Fatalf("a text page is %.4f coloured: the figure check is blind", f)
	}

	out, res := quickReproduction(t)
	page := filepath.Join(out, "report.html")
	if !strings.Contains(res, "report: "+page) {
		t.Fatalf("reproduce did not end with the report path: %s", res)
	}
	html, _ := os.ReadFile(page)
	for _, bad := range []string{`src="http`, `href="http`, `<script src`, `<link rel="stylesheet" href`} {
		if strings.Contains(string(html), bad) {
			t.Errorf("report is not self-contained: it has %s", bad)
		}
	}
	checkShot(t, bin, page, shotPath(dir, keep, "quick-report.png"), "1400,8000", "quick report")
	r := domCheck(t, bin, page)
	requireDOM(t, "quick report", r, 100)
	if r.Visible > 60 || r.Visible < 10 {
		t.Errorf("quick report: %d figures visible before unfolding, want 10 to 60 (of %d)", r.Visible, r.Figures)
	}
	t.Logf("quick report: %d figures (%d visible, %d metrics constant as text), %d texts measured", r.Figures, r.Visible, r.Constant, r.Texts)
	if keep != "" {
		figureSheets(t, bin, page, keep, "quick")
	}

	// A single run: its figures and its interactive views.
	for _, p := range []string{"easy", "fcfs", "conservative"} {
		if _, err := run("simulate", "--policy", p, "--out", filepath.Join(dir, "runs", p)); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(dir, "runs", "easy-report")
	if _, err := run("report", filepath.Join(dir, "runs", "easy"), "--out", single); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(single, "report.html")
	checkShot(t, bin, sp, shotPath(dir, keep, "single-run.png"), "1400,6000", "single-run report")
	requireDOM(t, "single-run report", domCheck(t, bin, sp), 8)
	checkViews(t, bin, sp)
	if keep != "" {
		figureSheets(t, bin, sp, keep, "single")
	}

	// Three runs compared on shared axes.
	cmp := filepath.Join(dir, "runs", "compare")
	if _, err := run("report", filepath.Join(dir, "runs", "easy"), filepath.Join(dir, "runs", "fcfs"), filepath.Join(dir, "runs", "conservative"), "--out", cmp); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(cmp, "report.html")
	checkShot(t, bin, cp, shotPath(dir, keep, "three-runs.png"), "1400,6000", "3-run comparison")
	requireDOM(t, "3-run comparison", domCheck(t, bin, cp), 10)
	if keep != "" {
		figureSheets(t, bin, cp, keep, "compare")
	}
}

// shotPath is where a screenshot goes: the kept folder, else dir.
func shotPath(dir, keep, name string) string {
	if keep != "" {
		os.MkdirAll(keep, 0o755)
		return filepath.Join(keep, name)
	}
	return filepath.Join(dir, name)
}

var figureOf = regexp.MustCompile(`(?s)<figure id="[^"]*"[^>]*>.*?</figure>`)

// figureSheets screenshots every figure of page, twelve to a sheet, as
// Chromium draws them (keep/NAME-sheet-NN.png), for a reviewer to look
// at one by one.
func figureSheets(t *testing.T, bin, page, keep, name string) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	head := s[:strings.Index(s, "<body>")+len("<body>")]
	figs := figureOf.FindAllString(s, -1)
	for i := 0; i < len(figs); i += 12 {
		sheet := filepath.Join(filepath.Dir(page), fmt.Sprintf("%s-sheet-%02d.html", name, i/12+1))
		body := `<div class="figs" style="grid-template-columns: repeat(3, 1fr)">` + strings.Join(figs[i:min(i+12, len(figs))], "\n") + `</div></body></html>`
		os.WriteFile(sheet, []byte(head+body), 0o644)
		chromiumSized(t, bin, sheet, filepath.Join(keep, fmt.Sprintf("%s-sheet-%02d.png", name, i/12+1)), "1800,2400")
		os.Remove(sheet)
	}
}

// checkShot screenshots page: no console errors, not blank, figures
// drawn in colour.
func checkShot(t *testing.T, bin, page, shot, size, what string) {
	t.Helper()
	log := chromiumSized(t, bin, page, shot, size)
	if errs := consoleErrors(log); len(errs) > 0 {
		t.Errorf("%s: console errors:\n%s", what, strings.Join(errs, "\n"))
	}
	if f := nonBlank(t, shot); f < 0.02 {
		t.Errorf("%s: screenshot is blank (%.4f of pixels drawn)", what, f)
	}
	if f := coloured(t, shot); f < 0.002 {
		t.Errorf("%s: the figures in the screenshot are blank (%.4f of pixels coloured)", what, f)
	}
}

// TestCloudReportInBrowser: the report of a single elastic-cloud run
// (issue 13) renders in headless Chromium with its figures: the common
// ones (CDFs, utilization and queues, Gantt chart of jobs on VMs) and the
// cloud's declared series (VMs, cost, queues, ALF, demand control).
func TestCloudReportInBrowser(t *testing.T) {
	bin := chromiumOrSkip(t)
	dir := t.TempDir()
	wl := filepath.Join(dir, "gang.swf")
	if _, err := run("workload", "generate", "--model", "gang", "--param", "lambda=2.5", "--jobs", "300", "--out", wl); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cloud")
	if _, err := run("simulate", "--policy", "cloud-ljfs", "--workload", wl, "--model-param", "cloud.max_vms=64", "--out", out); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "report")
	if _, err := run("report", out, "--out", rep); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(rep, "report.html")
	html, _ := os.ReadFile(page)
	for _, want := range []string{"VMs over time", "Cumulative lease time and cost over time", "Average load factor", "Demand control and migration", "schedule (Gantt chart)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("cloud report lacks the figure %q", want)
		}
	}
	if n := strings.Count(string(html), "<svg"); n < 12 {
		t.Errorf("cloud report has %d inline figures", n)
	}
	shot := filepath.Join(dir, "cloud.png")
	checkShot(t, bin, page, shot, "1400,8000", "cloud report")
	requireDOM(t, "cloud report", domCheck(t, bin, page), 12)
	if keep := os.Getenv("GRIDSCHED_CLOUD_SCREENSHOT"); keep != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(keep, b, 0o644)
	}
}
