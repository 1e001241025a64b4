package report

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"html/template"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The figure geometry: a single column of a two-column paper (3.5 in,
// 88.9 mm), the font sizes a paper uses at that width, and the wide
// figures (Gantt charts, the whole-run overview) a double column.
const (
	ColumnWidth = 3.5 * vg.Inch
	WideWidth   = 7 * vg.Inch
	plotHeight  = 2.3 * vg.Inch
	margin      = 4 // points around the figure

	titleSize  = 9
	labelSize  = 8
	tickSize   = 7
	legendSize = 7

	// PNGDPI is the resolution of PNG figures: at the single-column width
	// they are 1,050 pixels wide.
	PNGDPI = 300
)

// sans is the figures' font. The page embeds it (Liberation Sans, metric-
// compatible with Arial), so a browser lays the text out exactly as the
// figure was measured; SVG files name Arial and Helvetica as fallbacks.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func textStyle(size float64, role string) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sans, vg.Points(size)), Handler: roleHandler{plain(), role}}
}

func plain() text.Plain { return plot.DefaultTextHandler.(text.Plain) }

// Every piece of text a figure draws has a role (title, x-label, x-tick,
// y-label, y-tick, legend), written into the SVG as the text element's
// class, with data-g numbering the pieces (the lines of one wrapped
// label share it): so a test (or a reader's style sheet) can find each
// axis's tick labels in the page's DOM.

// roleHandler draws text of one role: it tells the canvas the role and
// starts a new piece before drawing.
type roleHandler struct {
	text.Plain
	role string
}

func (h roleHandler) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	inner := c
	for {
		switch dc := inner.(type) {
		case *draw.Canvas:
			inner = dc.Canvas
			continue
		case draw.Canvas:
			inner = dc.Canvas
			continue
		}
		break
	}
	if rc, ok := inner.(*roleCanvas); ok {
		rc.role = h.role
		rc.piece++
	}
	h.Plain.Draw(c, txt, sty, pt)
}

// roleCanvas records the role and piece of every string drawn, in order.
type roleCanvas struct {
	vg.CanvasSizer
	role  string
	piece int
	marks []string
}

func (c *roleCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.marks = append(c.marks, fmt.Sprintf(`class="t-%s" data-g="%d" `, c.role, c.piece))
	c.CanvasSizer.FillString(f, pt, s)
}

// markTexts adds the recorded role of each <text> element of an SVG, in
// order (none when the counts differ: a test then sees unmarked text).
func markTexts(svg []byte, marks []string) []byte {
	parts := bytes.Split(svg, []byte("<text "))
	if len(parts)-1 != len(marks) {
		return svg
	}
	var b bytes.Buffer
	b.Write(parts[0])
	for i, m := range marks {
		b.WriteString("<text ")
		b.WriteString(m)
		b.Write(parts[i+1])
	}
	return b.Bytes()
}

// entry is one legend entry.
type entry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// frame is a figure before it is drawn: a title, the plot (axes and
// data, drawn by gonum/plot), a legend below the plot, and the width.
// Every piece of text is measured and wrapped to fit inside the figure.
type frame struct {
	title  string
	p      *plot.Plot
	legend []entry
	width  vg.Length
	height vg.Length // of the plot (axes and data)
	open   *openBars // CI bars reaching below a log axis, if any
}

func newFrame(title string, p *plot.Plot) *frame {
	return &frame{title: title, p: p, width: ColumnWidth, height: plotHeight}
}

func (f *frame) add(name string, th ...plot.Thumbnailer) {
	f.legend = append(f.legend, entry{name: name, thumbs: th})
}

const thumbWidth = 16 // points

// layout is where a frame's parts go.
type layout struct {
	w, h      vg.Length
	title     string // wrapped
	titleH    vg.Length
	legendH   vg.Length
	cols      int
	colW      vg.Length
	names     []string // wrapped legend texts
	rowHeight []vg.Length
}

func (f *frame) layout() layout {
	inner := f.width - 2*margin
	l := layout{w: f.width}
	ts := textStyle(titleSize, "title")
	if f.title != "" {
		l.title = wrapWidth(ts, f.title, inner)
		l.titleH = ts.Height(l.title) + vg.Points(4)
	}
	ls := textStyle(legendSize, "legend")
	if len(f.legend) > 0 {
		gap := ls.Width(" ")
		widest := vg.Length(0)
		for _, e := range f.legend {
			widest = max(widest, ls.Width(e.name))
		}
		l.colW = min(inner, vg.Points(thumbWidth)+gap+widest+vg.Points(8))
		l.cols = max(1, min(len(f.legend), int(inner/l.colW)))
		l.colW = inner / vg.Length(l.cols)
		textW := l.colW - vg.Points(thumbWidth) - gap - vg.Points(2)
		rows := (len(f.legend) + l.cols - 1) / l.cols
		l.rowHeight = make([]vg.Length, rows)
		for i, e := range f.legend {
			name := wrapWidth(ls, e.name, textW)
			l.names = append(l.names, name)
			r := i / l.cols
			l.rowHeight[r] = max(l.rowHeight[r], ls.Height(name)+vg.Points(2))
		}
		l.legendH = vg.Points(4)
		for _, h := range l.rowHeight {
			l.legendH += h
		}
	}
	// The axis labels wrap to the data area's size.
	f.p.X.Label.Text = wrapWidth(f.p.X.Label.TextStyle, f.p.X.Label.Text, inner*0.85)
	f.p.Y.Label.Text = wrapWidth(f.p.Y.Label.TextStyle, f.p.Y.Label.Text, f.height*0.8)
	l.h = 2*margin + l.titleH + f.height + l.legendH
	return l
}

// draw draws the frame on c (of the layout's size).
func (f *frame) draw(c vg.CanvasSizer, l layout) {
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := l.h - margin
	if l.title != "" {
		ts := textStyle(titleSize, "title")
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		dc.FillText(ts, vg.Point{X: l.w / 2, Y: top}, l.title)
		top -= l.titleH
	}
	pc := draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Min: vg.Point{X: margin, Y: margin + l.legendH}, Max: vg.Point{X: l.w - margin, Y: top}}}
	f.p.Draw(pc)
	if len(f.legend) == 0 {
		return
	}
	ls := textStyle(legendSize, "legend")
	ls.YAlign = draw.YTop
	gap := ls.Width(" ")
	y := margin + l.legendH - vg.Points(4)
	for r, rh := range l.rowHeight {
		for k := 0; k < l.cols; k++ {
			i := r*l.cols + k
			if i >= len(f.legend) {
				break
			}
			x := margin + vg.Length(k)*l.colW
			line := ls.FontExtents().Height
			icon := draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y - line}, Max: vg.Point{X: x + vg.Points(thumbWidth), Y: y}}}
			for _, th := range f.legend[i].thumbs {
				th.Thumbnail(&icon)
			}
			dc.FillText(ls, vg.Point{X: x + vg.Points(thumbWidth) + gap, Y: y}, l.names[i])
		}
		y -= rh
	}
}

// wrapWidth breaks s into lines no wider than w in style sty: at spaces,
// and inside a word too long for a line (after a comma, slash, hyphen or
// underscore if there is one, else between letters).
func wrapWidth(sty text.Style, s string, w vg.Length) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for _, piece := range splitWord(sty, word, w) {
				cand := piece
				if line != "" {
					cand = line + " " + piece
				}
				if line != "" && sty.Width(cand) > w {
					out = append(out, line)
					line = piece
					continue
				}
				line = cand
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// splitWord cuts a word wider than w into pieces that fit.
func splitWord(sty text.Style, word string, w vg.Length) []string {
	if sty.Width(word) <= w {
		return []string{word}
	}
	var pieces []string
	rs := []rune(word)
	for len(rs) > 0 {
		n := len(rs)
		for n > 1 && sty.Width(string(rs[:n])) > w {
			n--
		}
		// prefer a break after punctuation within the piece
		for k := n; k > n/2 && k < len(rs); k-- {
			if strings.ContainsRune(",/-_;:=", rs[k-1]) {
				n = k
				break
			}
		}
		pieces = append(pieces, string(rs[:n]))
		rs = rs[n:]
	}
	return pieces
}

// Output says where figures go: Dir ("" for none: the SVG is rendered for
// the page only) and the file formats ("svg", "png", "pdf"; default svg
// and png).
type Output struct {
	Dir     string
	Formats []string
}

// DefaultFormats are the formats written when none are asked for.
var DefaultFormats = []string{"svg", "png"}

// Formats lists the figure formats `report --format` accepts.
var Formats = []string{"svg", "png", "pdf"}

// ParseFormats reads a comma-separated list of figure formats.
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("figure format %q: want some of %s", f, strings.Join(Formats, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no figure format given (want some of %s)", strings.Join(Formats, ", "))
	}
	return out, nil
}

// Render draws every figure not yet drawn: its SVG for the page and, with
// a folder, its files in each format (atomically). Figures are drawn in
// parallel; each is deterministic, so the output is too.
func Render(figs []*Figure, out Output) error {
	formats := out.Formats
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	if out.Dir != "" {
		if err := os.MkdirAll(out.Dir, 0o755); err != nil {
			return err
		}
	}
	var todo []*Figure
	for _, f := range figs {
		if f.fr != nil && f.SVG == "" {
			todo = append(todo, f)
		}
	}
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = todo[i].render(out.Dir, formats)
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// render draws f in each format (files in dir unless dir is "") and keeps
// the SVG for the page.
func (f *Figure) render(dir string, formats []string) error {
	l := f.fr.layout()
	f.Width, f.Height = l.w.Points(), l.h.Points()
	var svg []byte
	for _, format := range append([]string{"svg"}, formats...) {
		if format == "svg" && svg != nil {
			if dir != "" {
				if err := writeAtomic(filepath.Join(dir, f.Name+".svg"), svg); err != nil {
					return err
				}
				f.Files = append(f.Files, "svg")
			}
			continue
		}
		if dir == "" && format != "svg" {
			continue
		}
		b, err := f.fr.encode(format, l)
		if err != nil {
			return fmt.Errorf("figure %s (%s): %w", f.Name, format, err)
		}
		if format == "svg" {
			svg = b
			continue
		}
		if err := writeAtomic(filepath.Join(dir, f.Name+"."+format), b); err != nil {
			return err
		}
		f.Files = append(f.Files, format)
	}
	f.SVG = inlineSVG(svg)
	return nil
}

var (
	svgFontFace = regexp.MustCompile(`font-family:Liberation Sans;`)
)

// encode draws the frame in one format.
func (f *frame) encode(format string, l layout) ([]byte, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(l.w, l.h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(l.w, l.h), vgimg.UseDPI(PNGDPI))}
	case "pdf":
		c = newPDF(l.w, l.h) // fonts embedded as UTF-8 subsets
	default:
		return nil, fmt.Errorf("unknown figure format %q", format)
	}
	rc := &roleCanvas{CanvasSizer: c}
	f.draw(rc, l)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	out := b.Bytes()
	switch format {
	case "png":
		out = withDPI(out, PNGDPI)
	case "svg":
		out = markTexts(out, rc.marks)
		out = fixImages(out)
		out = svgFontFace.ReplaceAll(out, []byte(`font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`))
	}
	return out, nil
}

// fixImages makes every raster of an SVG (the whole-run overview) fill
// the box the plot gives it, as the PNG and PDF draw it: SVG's default
// preserveAspectRatio ("xMidYMid meet") letterboxes an image whose ratio
// differs from its box's (a 2,000 × 640 raster in a 460 × 138 pt box was
// squeezed by 6.6 %, moving every time on it), and names the data's
// type right (gonum/plot's SVG writer calls its PNG "image/jpg"). The
// cells are drawn as squares of colour, not smoothed.
func fixImages(svg []byte) []byte {
	svg = bytes.ReplaceAll(svg, []byte(`xlink:href="data:image/jpg;base64,`), []byte(`xlink:href="data:image/png;base64,`))
	return bytes.ReplaceAll(svg, []byte("<image "), []byte(`<image preserveAspectRatio="none" style="image-rendering:pixelated" `))
}

// withDPI adds a pHYs chunk to a PNG saying its resolution, so that a
// word processor or LaTeX places it at its size (3.5 in for a column)
// rather than at 72 or 96 dpi.
func withDPI(png []byte, dpi int) []byte {
	const sig, ihdr = 8, 8 + 13 + 4 // the signature; IHDR: length, type, 13 bytes, CRC
	if len(png) < sig+ihdr || string(png[12:16]) != "IHDR" {
		return png
	}
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	chunk := make([]byte, 0, 21)
	chunk = binary.BigEndian.AppendUint32(chunk, 9)
	chunk = append(chunk, "pHYs"...)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = append(chunk, 1) // unit: the metre
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := make([]byte, 0, len(png)+len(chunk))
	out = append(out, png[:sig+ihdr]...)
	out = append(out, chunk...)
	return append(out, png[sig+ihdr:]...)
}

var svgPrologue = regexp.MustCompile(`(?s)^.*?(<svg)`)

// inlineSVG strips the XML prologue so the SVG can sit inside HTML, and
// makes it scale with the page.
func inlineSVG(b []byte) template.HTML {
	s := svgPrologue.ReplaceAllString(string(b), "$1")
	s = strings.Replace(s, "<svg ", `<svg class="fig" style="width:100%;height:auto" `, 1)
	return template.HTML(s) // generated by gonum/plot from our own data
}

// dodge is the horizontal offset of series i of n on a nominal axis, so
// that points and error bars of different series at one category do not
// hide each other.
func dodge(i, n int) float64 {
	if n < 2 {
		return 0
	}
	step := math.Min(0.08, 0.5/float64(n))
	return (float64(i) - float64(n-1)/2) * step
}
