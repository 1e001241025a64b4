// Package swf reads and writes the Standard Workload Format (SWF 2.2) of
// the Parallel Workloads Archive: one job per line, 18 whitespace
// separated numeric fields, −1 for unknown, and header comments of the
// form "; Key: value".
//
// The reader streams (one record at a time), detects gzip from the
// content rather than the file name, tolerates banner and free comment
// lines, and reports malformed input as an error that names the file, the
// line and the field; it never panics on input.
package swf

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/internal/quote"
)

// Record is one SWF line. Integer fields are int/int64; time and memory
// fields are float64 because SWF allows fractional values there. −1 means
// unknown.
type Record struct {
	Job        int64   // 1 job number
	Submit     float64 // 2 submit time (s)
	Wait       float64 // 3 wait time (s)
	Run        float64 // 4 run time (s)
	Alloc      int     // 5 allocated processors
	AvgCPU     float64 // 6 average CPU time used (s)
	UsedMem    float64 // 7 used memory (KB per processor)
	ReqProcs   int     // 8 requested processors
	ReqTime    float64 // 9 requested time (s)
	ReqMem     float64 // 10 requested memory (KB per processor)
	Status     int     // 11 status
	User       int     // 12 user id
	Group      int     // 13 group id
	Executable int     // 14 executable (application) number
	Queue      int     // 15 queue number
	Partition  int     // 16 partition number
	Preceding  int64   // 17 preceding job number
	Think      float64 // 18 think time from preceding job (s)
}

// FieldNames are the 18 SWF field names, index 0 = field 1.
var FieldNames = [18]string{
	"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time",
	"requested memory", "status", "user id", "group id", "executable number",
	"queue number", "partition number", "preceding job number", "think time",
}

// intField marks the fields that must be integers.
var intField = [18]bool{0: true, 4: true, 7: true, 10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true}

// HeaderField is one header line: "; Key: value", or (Key empty) a
// comment line that is no field (the banner, a copyright notice, the
// continuation of a long value). Raw is the line as read (empty for a
// field made in code); the writer writes it verbatim.
type HeaderField struct {
	Key, Value string
	Raw        string
}

// Header is the ordered list of header fields of a file.
type Header []HeaderField

// Get returns the value of the first field named key (case-insensitive).
func (h Header) Get(key string) (string, bool) {
	for _, f := range h {
		if f.Key != "" && strings.EqualFold(f.Key, key) {
			return f.Value, true
		}
	}
	return "", false
}

// Int returns the first integer in the value of key: header values are
// free text in practice ("MaxNodes: 400 (48 interactive, 352 batch)").
func (h Header) Int(key string) (int64, bool) {
	v, ok := h.Get(key)
	if !ok {
		return 0, false
	}
	start := strings.IndexAny(v, "-0123456789")
	if start < 0 {
		return 0, false
	}
	end := start + 1
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	n, err := strconv.ParseInt(v[start:end], 10, 64)
	return n, err == nil
}

// Error is a malformed-input error with its position.
type Error struct {
	File  string
	Line  int
	Field int // 1-based SWF field number; 0 when the line as a whole is wrong
	Msg   string
}

func (e *Error) Error() string {
	if e.Field > 0 {
		return fmt.Sprintf("%s:%d: field %d (%s): %s", e.File, e.Line, e.Field, FieldNames[e.Field-1], e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Reader reads SWF records one at a time.
type Reader struct {
	name   string
	sc     *bufio.Scanner
	line   int
	header Header
	closer io.Closer
	src    *errReader
}

// errReader remembers the first read error other than io.EOF: the
// scanner hands out the partial last line of a truncated gzip stream
// before it reports the error, and that line must not be parsed as a
// (short) record.
type errReader struct {
	r    io.Reader
	gzip bool
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// readErr describes the input's read error at line.
func (r *Reader) readErr(line int) error {
	if r.src.gzip {
		return fmt.Errorf("%s:%d: gzip: the compressed stream is truncated or corrupt (%v)", r.name, line, r.src.err)
	}
	return fmt.Errorf("%s:%d: %w", r.name, line, r.src.err)
}

// NewReader reads SWF text or gzip-compressed SWF from r; name is used in
// error messages.
func NewReader(r io.Reader, name string) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var src io.Reader = br
	var closer io.Closer
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		src, closer = gz, gz
	}
	er := &errReader{r: src, gzip: closer != nil}
	sc := bufio.NewScanner(er)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	return &Reader{name: name, sc: sc, closer: closer, src: er}, nil
}

// Open opens an SWF file (plain or gzip).
func Open(path string) (*Reader, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

// Header returns the header fields read so far; after the first Next call
// it holds every header line that precedes the first record.
func (r *Reader) Header() Header { return r.header }

// Line is the number of the line last read.
func (r *Reader) Line() int { return r.line }

// Next returns the next record, or io.EOF at the end of the input.
func (r *Reader) Next() (Record, error) {
	for r.sc.Scan() {
		r.line++
		if r.src.err != nil {
			return Record{}, r.readErr(r.line)
		}
		b := r.sc.Bytes()
		t := bytes.TrimSpace(b)
		if len(t) == 0 {
			continue
		}
		if t[0] == ';' {
			r.comment(t[1:])
			continue
		}
		return r.parse(t)
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Record{}, &Error{File: r.name, Line: r.line + 1, Msg: "line longer than 1 MiB"}
		}
		if r.src.err != nil {
			return Record{}, r.readErr(r.line + 1)
		}
		return Record{}, fmt.Errorf("%s:%d: %w", r.name, r.line, err)
	}
	return Record{}, io.EOF
}

func (r *Reader) comment(c []byte) {
	raw := ";" + string(c)
	if len(r.header) > 10_000 {
		return // a header that long is prose; keep memory bounded
	}
	s := strings.TrimSpace(string(c))
	i := strings.IndexByte(s, ':')
	prose := HeaderField{Raw: raw, Value: s}
	if i <= 0 || strings.HasPrefix(s[i+1:], "//") {
		// Banner, free text, or a URL continuing the line before
		// ("http://www..." is no key).
		r.header = append(r.header, prose)
		return
	}
	key := s[:i]
	for _, ch := range key {
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_') {
			r.header = append(r.header, prose) // "Note: ..." keys are words; anything else is prose
			return
		}
	}
	r.header = append(r.header, HeaderField{Key: key, Value: strings.TrimSpace(s[i+1:]), Raw: raw})
}

func (r *Reader) parse(t []byte) (Record, error) {
	var f [18]float64
	n := 0
	for i := 0; i < len(t); {
		for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
			i++
		}
		if i >= len(t) {
			break
		}
		j := i
		for j < len(t) && t[j] != ' ' && t[j] != '\t' {
			j++
		}
		if n == 18 {
			return Record{}, &Error{File: r.name, Line: r.line, Msg: "more than 18 fields"}
		}
		v, err := parseNum(t[i:j], intField[n])
		if err != "" {
			return Record{}, &Error{File: r.name, Line: r.line, Field: n + 1, Msg: quote.Clip(string(t[i:j])) + " " + err}
		}
		f[n] = v
		n++
		i = j
	}
	if n != 18 {
		return Record{}, &Error{File: r.name, Line: r.line, Msg: fmt.Sprintf("expected 18 fields, found %d", n)}
	}
	return Record{
		Job: int64(f[0]), Submit: f[1], Wait: f[2], Run: f[3], Alloc: int(f[4]),
		AvgCPU: f[5], UsedMem: f[6], ReqProcs: int(f[7]), ReqTime: f[8], ReqMem: f[9],
		Status: int(f[10]), User: int(f[11]), Group: int(f[12]), Executable: int(f[13]),
		Queue: int(f[14]), Partition: int(f[15]), Preceding: int64(f[16]), Think: f[17],
	}, nil
}

// maxExact is 2^53, the largest magnitude up to which every integer is a
// float64.
const maxExact = 1 << 53

// parseNum parses an integer quickly, falling back to ParseFloat for
// fractional values. It returns a non-empty message on error.
func parseNum(b []byte, integer bool) (float64, string) {
	neg := false
	s := b
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) > 0 && len(s) <= 15 {
		v := int64(0)
		ok := true
		for _, c := range s {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if ok {
			if neg {
				v = -v
			}
			return float64(v), ""
		}
	}
	if t := bytes.TrimLeft(b, "+-"); bytes.HasPrefix(t, []byte("0x")) || bytes.HasPrefix(t, []byte("0X")) || bytes.IndexByte(b, '_') >= 0 {
		return 0, "is not a decimal number"
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil || x != x || math.IsInf(x, 0) {
		return 0, "is not a number"
	}
	if x >= maxExact || x <= -maxExact {
		// Beyond 2^53 a float64 cannot hold every integer: times would
		// lose seconds (1e17 + 1 == 1e17).
		return 0, "is 2^53 or more (cannot be represented exactly)"
	}
	if integer && x != float64(int64(x)) {
		return 0, "is not an integer"
	}
	return x, ""
}

// Close releases the gzip stream, if any (the caller closes the file).
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Writer writes SWF text.
type Writer struct {
	w   *bufio.Writer
	buf []byte
}

// NewWriter writes SWF to w. Call Flush at the end.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 1<<16)} }

// WriteHeader writes header lines: a line read from a file verbatim,
// a field made in code as "; Key: value".
func (w *Writer) WriteHeader(h Header) error {
	for _, f := range h {
		var err error
		switch {
		case f.Raw != "":
			_, err = fmt.Fprintf(w.w, "%s\n", f.Raw)
		case f.Key == "":
			_, err = fmt.Fprintf(w.w, "; %s\n", f.Value)
		default:
			_, err = fmt.Fprintf(w.w, "; %s: %s\n", f.Key, f.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Write writes one record.
func (w *Writer) Write(r *Record) error {
	b := w.buf[:0]
	vals := [18]float64{
		float64(r.Job), r.Submit, r.Wait, r.Run, float64(r.Alloc), r.AvgCPU, r.UsedMem,
		float64(r.ReqProcs), r.ReqTime, r.ReqMem, float64(r.Status), float64(r.User),
		float64(r.Group), float64(r.Executable), float64(r.Queue), float64(r.Partition),
		float64(r.Preceding), r.Think,
	}
	for i, v := range vals {
		if i > 0 {
			b = append(b, ' ')
		}
		b = AppendNum(b, v)
	}
	b = append(b, '\n')
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// AppendNum formats v as an integer when it is one, else with the
// shortest decimal that round-trips.
func AppendNum(b []byte, v float64) []byte {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// Flush writes buffered data.
func (w *Writer) Flush() error { return w.w.Flush() }
