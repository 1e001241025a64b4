package report

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"regexp"
	"testing"
)

var svgImage = regexp.MustCompile(`<image ([^>]*)/?>`)

func svgAttr(el, name string) (string, bool) {
	m := regexp.MustCompile(`(?:^|\s)` + regexp.QuoteMeta(name) + `="([^"]*)"`).FindStringSubmatch(el)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// TestOverviewImageFillsItsBox (review of issue 29, A2): the whole-run
// overview's raster fills the box the plot gives it in the SVG too: its
// <image> says preserveAspectRatio="none" (else a browser letterboxes a
// raster whose ratio differs from the box's, and every time read off it
// is wrong), and its data is labelled as the PNG it is.
func TestOverviewImageFillsItsBox(t *testing.T) {
	var jobs []GanttJob
	for i := 0; i < 200; i++ {
		jobs = append(jobs, GanttJob{ID: int64(i), Start: 6.5*86400 + float64(i)*3600, End: 6.5*86400 + float64(i+5)*3600, Nodes: [][2]int{{i % 64, i % 64}}})
	}
	f, err := OverviewFigure("o", "whole run", jobs, 64)
	if err != nil {
		t.Fatal(err)
	}
	figs := []Figure{f}
	render(t, "", figs)
	ims := svgImage.FindAllStringSubmatch(string(figs[0].SVG), -1)
	if len(ims) != 1 {
		t.Fatalf("%d <image> elements, want 1", len(ims))
	}
	el := ims[0][1]
	if v, _ := svgAttr(el, "preserveAspectRatio"); v != "none" {
		t.Errorf("the overview's <image> has preserveAspectRatio %q, want \"none\": %.200s", v, el)
	}
	href, _ := svgAttr(el, "xlink:href")
	const prefix = "data:image/png;base64,"
	if len(href) < len(prefix) || href[:len(prefix)] != prefix {
		t.Fatalf("the overview's data is %.30q, want a PNG data URL", href)
	}
	raw, err := base64.StdEncoding.DecodeString(href[len(prefix):])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the data URL is not a PNG: %v", err)
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		t.Errorf("an empty raster %d×%d", cfg.Width, cfg.Height)
	}
}
