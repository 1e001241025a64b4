package report

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

var (
	pdfStream  = regexp.MustCompile(`(?s)<<([^>]*?)>>\s*stream\r?\n(.*?)\r?\nendstream`)
	pdfShowStr = regexp.MustCompile(`(?s)\(((?:\\.|[^\\)])*)\)\s*Tj`)
)

// pdfText is the text a PDF viewer shows (a copy and paste gives), read
// without a PDF library: the strings of every Tj operator of the content
// streams, decoded as the document's font says: UTF-16BE through an
// identity ToUnicode map for a Type0 font with Identity-H encoding, else
// one byte per character (WinAnsi, which agrees with Latin-1 on the bytes
// a UTF-8 multi-byte sequence has: "λ" written as its UTF-8 bytes reads
// "Î»").
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	type0 := bytes.Contains(pdf, []byte("/Subtype /Type0")) && bytes.Contains(pdf, []byte("/Encoding /Identity-H"))
	identity := false
	var texts []string
	for _, m := range pdfStream.FindAllSubmatch(pdf, -1) {
		data := m[2]
		if bytes.Contains(m[1], []byte("/FlateDecode")) {
			r, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				continue // an image or font stream it cannot read is not text
			}
			data, err = io.ReadAll(r)
			if err != nil {
				t.Fatalf("a compressed stream does not inflate: %v", err)
			}
		}
		if bytes.Contains(data, []byte("begincmap")) && bytes.Contains(data, []byte("<0000> <FFFF> <0000>")) {
			identity = true
		}
		for _, s := range pdfShowStr.FindAllSubmatch(data, -1) {
			texts = append(texts, string(unescapePDF(s[1])))
		}
	}
	var out []string
	for _, s := range texts {
		if type0 && identity {
			if len(s)%2 != 0 {
				t.Fatalf("a UTF-16 string of odd length: %q", s)
			}
			u := make([]uint16, len(s)/2)
			for i := range u {
				u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
			}
			out = append(out, string(utf16.Decode(u)))
			continue
		}
		rs := make([]rune, len(s))
		for i := 0; i < len(s); i++ {
			rs[i] = rune(s[i])
		}
		out = append(out, string(rs))
	}
	return strings.Join(out, "\n")
}

// unescapePDF undoes a PDF literal string's escapes.
func unescapePDF(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		switch c := b[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			if c >= '0' && c <= '7' {
				v, n := 0, 0
				for n < 3 && i < len(b) && b[i] >= '0' && b[i] <= '7' {
					v = v*8 + int(b[i]-'0')
					i++
					n++
				}
				i--
				out = append(out, byte(v))
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// TestPDFTextIsUnicode (review of issue 29, A1): a PDF figure's text reads
// as written, λ, ≤ and × included. The PDF writer's TrueType fonts are
// WinAnsi-encoded, which has no λ or ≤: every such label read "Î»" and
// "â‰¤" in a viewer. The figure's font is embedded as a subset (the
// glyphs drawn, not the whole 300 kB font) under Identity-H with a
// ToUnicode map.
func TestPDFTextIsUnicode(t *testing.T) {
	dir := t.TempDir()
	title := "Mean response, λ ≤ 2 × 10"
	f, err := SweepFigure("f", Sweep{Title: title, XLabel: "λ (mean interval)", Metric: MetricInfo("mean_wait"),
		Series: []Series{{Name: "drrm", X: []float64{1, 2, 3}, Y: []float64{3, 2, 1}, Err: []float64{0.1, 0.2, 0.1}}}})
	if err != nil {
		t.Fatal(err)
	}
	figs := []Figure{f}
	if err := Render([]*Figure{&figs[0]}, Output{Dir: dir, Formats: []string{"pdf"}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f.pdf")
	pdf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	txt := pdfText(t, pdf)
	for _, want := range []string{title, "λ (mean interval)", "drrm"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the PDF's text lacks %q; it reads:\n%s", want, txt)
		}
	}
	if len(pdf) > 60_000 {
		t.Errorf("the PDF is %d bytes: the font is not subset", len(pdf))
	}
	// A second opinion where poppler is installed.
	if bin, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command(bin, "-raw", path, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext: %v", err)
		}
		if !strings.Contains(string(out), "λ (mean interval)") {
			t.Errorf("pdftotext reads:\n%s", out)
		}
	}
}
