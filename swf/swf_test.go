package swf

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/internal/testenv"
)

const sample = `;   --- SWF file converted from SACCT ---
; Version: 2.2
; MaxNodes: 400 (48 interactive, 352 batch, 6 service, 10 I/O)
; MaxProcs: 1664 (72, 1368, 224)
;	see: somewhere
; This line is prose, not a key: value
1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1

2 5.5 0 30.25 1 -1 -1 -1 -1 -1 5 3 1 -1 1 1 -1 -1
`

func readAll(t *testing.T, in []byte, name string) ([]Record, Header, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(in), name)
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, r.Header(), nil
		}
		if err != nil {
			return recs, r.Header(), err
		}
		recs = append(recs, rec)
	}
}

func TestReadSample(t *testing.T) {
	recs, h, err := readAll(t, []byte(sample), "s.swf")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	want := Record{Job: 2, Submit: 5.5, Wait: 0, Run: 30.25, Alloc: 1, AvgCPU: -1, UsedMem: -1, ReqProcs: -1,
		ReqTime: -1, ReqMem: -1, Status: 5, User: 3, Group: 1, Executable: -1, Queue: 1, Partition: 1, Preceding: -1, Think: -1}
	if diff := cmp.Diff(want, recs[1]); diff != "" {
		t.Errorf("record 2 (-want +got):\n%s", diff)
	}
	// First integer of free-text header values (facts §2b).
	if n, ok := h.Int("MaxNodes"); !ok || n != 400 {
		t.Errorf("MaxNodes = %d %v, want 400", n, ok)
	}
	if n, ok := h.Int("maxprocs"); !ok || n != 1664 {
		t.Errorf("MaxProcs = %d %v, want 1664", n, ok)
	}
	if _, ok := h.Get("This line is prose, not a key"); ok {
		t.Error("prose comment taken as a header key")
	}
}

func TestGzipDetectedFromContent(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write([]byte(sample))
	gz.Close()
	recs, _, err := readAll(t, buf.Bytes(), "no-gz-suffix.swf")
	if err != nil || len(recs) != 2 {
		t.Fatalf("gzip input: %d records, err %v", len(recs), err)
	}
}

// TestMalformed checks that every malformed line is reported with the
// file, the line number and, where one field is at fault, its number and
// name.
func TestMalformed(t *testing.T) {
	good := "1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1"
	cases := []struct {
		line string
		want string
	}{
		{"1 0 10 100 abc -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1", `bad.swf:3: field 5 (allocated processors): "abc" is not a number`},
		{"1 0 10 100 4.5 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1", `bad.swf:3: field 5 (allocated processors): "4.5" is not an integer`},
		{"1 0 10 1e999 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1", `bad.swf:3: field 4 (run time): "1e999" is not a number`},
		{"1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1", `bad.swf:3: expected 18 fields, found 17`},
		{good + " 7", `bad.swf:3: more than 18 fields`},
		{"1 0 10 100 4 -1 -1 4 NaN -1 1 3 1 -1 0 1 -1 -1", `bad.swf:3: field 9 (requested time): "NaN" is not a number`},
	}
	for _, c := range cases {
		in := "; Version: 2\n" + good + "\n" + c.line + "\n"
		recs, _, err := readAll(t, []byte(in), "bad.swf")
		var se *Error
		if !errors.As(err, &se) || err.Error() != c.want {
			t.Errorf("line %q: err = %v, want %s", c.line, err, c.want)
		}
		if len(recs) != 1 {
			t.Errorf("line %q: %d records read before the error, want 1", c.line, len(recs))
		}
	}
}

// TestRoundTrip: any record written and read back is unchanged.
func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		num := func(name string) float64 {
			if rapid.Bool().Draw(t, name+"-frac") {
				return float64(rapid.IntRange(-1, 1e6).Draw(t, name)) / 4
			}
			return float64(rapid.IntRange(-1, 1e9).Draw(t, name))
		}
		in := func(name string) int { return rapid.IntRange(-1, 1e6).Draw(t, name) }
		rec := Record{
			Job: int64(in("job")), Submit: num("submit"), Wait: num("wait"), Run: num("run"), Alloc: in("alloc"),
			AvgCPU: num("cpu"), UsedMem: num("mem"), ReqProcs: in("req"), ReqTime: num("reqt"), ReqMem: num("reqm"),
			Status: in("status"), User: in("user"), Group: in("group"), Executable: in("exe"), Queue: in("queue"),
			Partition: in("part"), Preceding: int64(in("prec")), Think: num("think"),
		}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.WriteHeader(Header{{Key: "Version", Value: "2.2"}, {Key: "MaxProcs", Value: "128"}})
		w.Write(&rec)
		w.Flush()
		r, _ := NewReader(&buf, "rt")
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if got != rec {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, rec)
		}
		if n, _ := r.Header().Int("MaxProcs"); n != 128 {
			t.Fatalf("header lost: %v", r.Header())
		}
	})
}

// FuzzReader: arbitrary input never panics, and every error names a line.
func FuzzReader(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1\n"))
	f.Add([]byte("; MaxProcs: 12\n1 2 3\n"))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	f.Add([]byte("1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1 1 2 3\n-1e400"))
	for _, sp := range testenv.IntegerSpellings { // only decimal numbers are read
		f.Add([]byte("; MaxProcs: " + sp.Text + "\n1 " + sp.Text + " 10 " + sp.Text + " 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "fuzz.swf")
		if err != nil {
			return
		}
		for i := 0; i < 10000; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var se *Error
				if errors.As(err, &se) && (se.Line < 1 || !strings.HasPrefix(err.Error(), "fuzz.swf:")) {
					t.Fatalf("error without position: %v", err)
				}
				return
			}
			// What parsed must write back and parse to the same record.
			var buf bytes.Buffer
			w := NewWriter(&buf)
			w.Write(&rec)
			w.Flush()
			r2, _ := NewReader(&buf, "again")
			rec2, err := r2.Next()
			if err != nil || rec2 != rec {
				t.Fatalf("re-read of %+v: %+v, %v", rec, rec2, err)
			}
		}
	})
}

// TestRefusesInexactAndHex: values a float64 cannot hold exactly (beyond
// 2^53) and hex floats are refused with line and field (issue 18, item 5).
func TestRefusesInexactAndHex(t *testing.T) {
	rec := func(submit, run string) string {
		return "1 " + submit + " 0 " + run + " 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1\n"
	}
	for _, c := range []struct{ name, in, want string }{
		{"submit 1e17", rec("1e17", "1"), `h.swf:1: field 2 (submit time): "1e17" is 2^53 or more`},
		{"2^53+1", rec("9007199254740993", "1"), `h.swf:1: field 2 (submit time): "9007199254740993" is 2^53 or more`},
		{"hex submit", rec("0x1p4", "1"), `h.swf:1: field 2 (submit time): "0x1p4" is not a decimal number`},
		{"hex runtime", rec("0", "0X10"), `h.swf:1: field 4 (run time): "0X10" is not a decimal number`},
		{"underscore", rec("1_000", "1"), `h.swf:1: field 2 (submit time): "1_000" is not a decimal number`},
		{"inf", rec("0", "Inf"), `h.swf:1: field 4 (run time): "Inf" is not a number`},
		{"negative beyond", rec("-1e16", "1"), `is 2^53 or more`},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, _, err := readAll(t, []byte(c.in), "h.swf")
			if err == nil || !strings.Contains(err.Error(), c.want) || len(recs) != 0 {
				t.Fatalf("%d records, err %v, want %q", len(recs), err, c.want)
			}
		})
	}
	// 2^53 - 1 is exact and accepted.
	if recs, _, err := readAll(t, []byte(rec("9007199254740991", "1")), "h.swf"); err != nil || recs[0].Submit != 1<<53-1 {
		t.Fatalf("2^53-1: %v", err)
	}
}

// TestTruncatedGzipNamesGzip: a gzip stream cut anywhere says gzip, never
// "expected 18 fields" for the partial last line (issue 18, item 6).
func TestTruncatedGzipNamesGzip(t *testing.T) {
	var plain strings.Builder
	for i := 1; i <= 400; i++ {
		plain.WriteString(strings.Repeat(" ", i%7) + "1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 0 1 -1 -1\n")
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(plain.String()))
	w.Close()
	full := gz.Bytes()
	for cut := 20; cut < len(full)-1; cut += 7 {
		_, _, err := readAll(t, full[:cut], "t.swf.gz")
		if err == nil {
			t.Fatalf("cut at %d of %d: accepted", cut, len(full))
		}
		if !strings.Contains(err.Error(), "gzip") {
			t.Fatalf("cut at %d of %d: %v", cut, len(full), err)
		}
	}
}
