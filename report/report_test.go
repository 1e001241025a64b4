package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiguresAreByteStable: the same data gives byte-identical SVG and
// PNG files, so figures can be golden-tested and reports reproduced.
func TestFiguresAreByteStable(t *testing.T) {
	series := []Series{
		{Name: "easy", X: []float64{0.8, 1, 1.2}, Y: []float64{10, 7, 3}, Err: []float64{2, 1, math.NaN()}},
		{Name: "fcfs", X: []float64{0.8, 1, 1.2}, Y: []float64{900, 400, 100}, Err: []float64{50, 20, 10}},
	}
	var files [2][][]byte
	for i := range files {
		dir := t.TempDir()
		f, err := SweepFigure(dir, "fig", "a title", "x", "y", series, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(f.SVG), "<svg ") || !strings.Contains(f.Caption, "logarithmic") || !strings.Contains(f.Caption, "95% confidence") {
			t.Errorf("figure: caption %q, svg starts %.20q", f.Caption, f.SVG)
		}
		for _, ext := range []string{".svg", ".png"} {
			b, err := os.ReadFile(filepath.Join(dir, "fig"+ext))
			if err != nil || len(b) < 1000 {
				t.Fatalf("%s: %v (%d bytes)", ext, err, len(b))
			}
			files[i] = append(files[i], b)
		}
	}
	for k := range files[0] {
		if !bytes.Equal(files[0][k], files[1][k]) {
			t.Errorf("figure file %d differs between two renderings", k)
		}
	}
}

// TestPageIsSelfContained renders a page and checks it needs no network.
func TestPageIsSelfContained(t *testing.T) {
	dir := t.TempDir()
	sec, err := GridModelSection(1, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Figures) != 5 {
		t.Fatalf("%d seed-004 figures", len(sec.Figures))
	}
	p := Page{Title: "t", Sections: []Section{sec, {Title: "s2", Tables: []Table{{Title: "tab", Columns: []string{"a"}, Rows: [][]string{{"<b>"}}}}}}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Count(html, "<svg") != 5 || strings.Contains(html, `src="http`) || strings.Contains(html, "<script") {
		t.Errorf("page not self-contained or figures missing")
	}
	if !strings.Contains(html, "&lt;b&gt;") {
		t.Error("table text is not escaped")
	}
}
