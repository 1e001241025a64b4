// The PDF canvas below is gonum/plot's vg/vgpdf (Copyright ©2015 The
// Gonum Authors, BSD-3-Clause, as the rest of gonum/plot), changed in how
// it embeds fonts: vgpdf converts every TrueType font to a WinAnsi (code
// page 1252) font, which has no λ, ≤ or Greek letters at all, so a label
// "λ ≤ 2" read "Î» â‰¤ 2" in every viewer, and it embeds the whole font
// (about 220 kB a figure). This one embeds the font as a UTF-8 subset
// (fpdf's Type0 font, Identity-H encoding, with a ToUnicode map): every
// character reads, and is found and copied, as written, and only the
// glyphs drawn are embedded. It also fixes the document's dates so that a
// figure is the same bytes for the same data.

package report

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	pdf "codeberg.org/go-pdf/fpdf"
	stdfnt "golang.org/x/image/font"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfDPI is the nominal resolution of drawing in PDF.
const pdfDPI = 72

// pdfEpoch is the creation and modification date every figure records.
var pdfEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfCanvas implements vg.CanvasWriterTo, drawing to a PDF document.
type pdfCanvas struct {
	doc       *pdf.Fpdf
	w, h      vg.Length
	numImages int
	stack     []pdfContext
	fonts     map[font.Font]bool
	err       error
}

type pdfContext struct {
	fill  color.Color
	line  color.Color
	width vg.Length
}

// newPDF is a PDF canvas of the given size.
func newPDF(w, h vg.Length) *pdfCanvas {
	doc := pdf.NewCustom(&pdf.InitType{UnitStr: "pt", Size: pdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCatalogSort(true)
	doc.SetCreationDate(pdfEpoch)
	doc.SetModificationDate(pdfEpoch)
	c := &pdfCanvas{doc: doc, w: w, h: h, stack: make([]pdfContext, 1), fonts: map[font.Font]bool{}}
	c.doc.SetMargins(0, 0, 0)
	c.doc.AddPage()
	c.Push()
	c.Translate(vg.Point{X: 0, Y: c.h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) DPI() float64                  { return pdfDPI }
func (c *pdfCanvas) Size() (w, h vg.Length)        { return c.w, c.h }
func (c *pdfCanvas) context() *pdfContext          { return &c.stack[len(c.stack)-1] }
func (c *pdfCanvas) unit(l vg.Length) float64      { return l.Dots(pdfDPI) }
func (c *pdfCanvas) xy(pt vg.Point) (x, y float64) { return c.unit(pt.X), c.unit(pt.Y) }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.context().width = w
	c.doc.SetLineWidth(c.unit(w))
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = c.unit(d)
	}
	c.doc.SetDashPattern(ds, c.unit(offs))
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.context().line, c.context().fill = clr, clr
	r, g, b, a := clr.RGBA()
	ri, gi, bi := int(r>>8), int(g>>8), int(b>>8)
	if a > 0 && a < math.MaxUint16 {
		// RGBA is premultiplied; PDF colours are not.
		ri, gi, bi = int(r*0xff/a), int(g*0xff/a), int(b*0xff/a)
	}
	c.doc.SetFillColor(ri, gi, bi)
	c.doc.SetDrawColor(ri, gi, bi)
	c.doc.SetTextColor(ri, gi, bi)
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

func (c *pdfCanvas) Rotate(r float64) { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }

func (c *pdfCanvas) Translate(pt vg.Point) {
	x, y := c.xy(pt)
	c.doc.TransformTranslate(x, y)
}

func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.context())
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.context().width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// fontStyle is fpdf's style letters for a face.
func fontStyle(f font.Face) string {
	s := ""
	if f.Font.Weight == stdfnt.WeightBold {
		s += "B"
	}
	if f.Font.Style == stdfnt.StyleItalic {
		s += "I"
	}
	return s
}

func (c *pdfCanvas) FillString(fnt font.Face, pt vg.Point, str string) {
	if fnt.Font.Size == 0 {
		return
	}
	c.addFont(fnt)
	c.doc.SetFont(fnt.Name(), fontStyle(fnt), c.unit(fnt.Font.Size))
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	c.Scale(1, -1) // fpdf's origin is the top left corner
	size := c.unit(fnt.Font.Size)
	top := 0.81 * size
	if d := c.doc.GetFontDesc(fnt.Name(), fontStyle(fnt)); d.Ascent != 0 {
		top = -float64(d.Ascent) * size / float64(d.Ascent-d.Descent)
	}
	c.doc.MoveTo(-c.doc.GetCellMargin(), top)
	c.doc.CellFormat(c.doc.GetStringWidth(str), size, str, "", 0, "BL", false, 0, "")
}

// addFont embeds a font the first time it is used, as a UTF-8 subset.
func (c *pdfCanvas) addFont(fnt font.Face) {
	if c.fonts[fnt.Font] {
		return
	}
	c.fonts[fnt.Font] = true
	var raw bytes.Buffer
	if _, err := fnt.Face.WriteSourceTo(nil, &raw); err != nil {
		c.err = fmt.Errorf("font %q: %w", fnt.Name(), err)
		return
	}
	c.doc.AddUTF8FontFromBytes(fnt.Name(), fontStyle(fnt), raw.Bytes())
}

func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	opts := pdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.numImages++
	name := fmt.Sprintf("image_%03d.png", c.numImages)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.err = fmt.Errorf("image in a PDF: %w", err)
		return
	}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	x, y := c.xy(rect.Min)
	w, h := c.xy(rect.Size())
	c.doc.ImageOptions(name, x, y, w, h, false, opts, 0, "")
}

// path draws a vg.Path (style "D" strokes, "F" fills).
func (c *pdfCanvas) path(path vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range path {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = c.xy(comp.Pos)
			c.doc.MoveTo(x0, y0)
		case vg.LineComp:
			c.doc.LineTo(c.xy(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, style)
		case vg.CurveComp:
			px, py := c.xy(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.xy(comp.Control[0])
				c.doc.CurveTo(cx, cy, px, py)
			case 2:
				cx, cy := c.xy(comp.Control[0])
				dx, dy := c.xy(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, px, py)
			default:
				c.err = fmt.Errorf("a curve with %d control points", len(comp.Control))
			}
		case vg.CloseComp:
			c.doc.LineTo(x0, y0)
			c.doc.ClosePath()
		default:
			c.err = fmt.Errorf("unknown path component %d", comp.Type)
		}
	}
	c.doc.DrawPath(style)
}

func (c *pdfCanvas) arc(comp vg.PathComp, style string) {
	x0 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start))
	y0 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start))
	c.doc.LineTo(c.unit(x0), c.unit(y0))
	r := c.unit(comp.Radius)
	const deg = 180 / math.Pi
	beg := comp.Start * deg
	c.doc.Arc(c.unit(comp.Pos.X), c.unit(comp.Pos.Y), r, r, comp.Angle*deg, beg, beg+comp.Angle*deg, style)
	x1 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start+comp.Angle))
	y1 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start+comp.Angle))
	c.doc.MoveTo(c.unit(x1), c.unit(y1))
}

type countingWriter struct {
	io.Writer
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p)
	w.n += int64(n)
	return n, err
}

// WriteTo writes the document; the canvas is closed afterwards.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.Pop()
	c.doc.Close()
	cw := &countingWriter{Writer: w}
	b := bufio.NewWriter(cw)
	if err := c.doc.Output(b); err != nil {
		return cw.n, err
	}
	return cw.n, b.Flush()
}
