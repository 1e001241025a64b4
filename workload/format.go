package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/internal/atomicfile"
	"github.com/gridsched/gridsched/internal/quote"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/swf"
)

// Format is a job file format.
type Format int

const (
	FormatSWF   Format = iota // Standard Workload Format (plain or gzip)
	FormatCSV                 // native: CSV with a header, every job field
	FormatJSONL               // native: one JSON object per line, every job field
)

// FormatOf chooses the format from the file name: .csv, .jsonl, else SWF
// (.swf, .swf.gz, anything else).
func FormatOf(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return FormatCSV
	case ".jsonl":
		return FormatJSONL
	}
	return FormatSWF
}

// Columns of the native formats, in order. Unknown integers are −1;
// unknown floats are empty in CSV and null in JSON Lines. Floats are
// written with the shortest decimal that reads back to the same value,
// so files round-trip exactly.
var Columns = []string{
	"id", "submit", "runtime", "procs", "estimate", "trace_wait", "avg_cpu", "used_mem",
	"req_procs", "req_mem", "status", "user", "group", "executable", "queue", "partition",
	"preceding", "think", "deadline", "site", "migration_cost", "window_start", "window_end", "level",
}

// fields gives access to a job's fields in Columns order: ints as int64,
// floats as float64.
func fields(j *model.Job) []any {
	return []any{
		&j.ID, &j.Submit, &j.Runtime, &j.Procs, &j.Estimate, &j.TraceWait, &j.AvgCPU, &j.UsedMem,
		&j.ReqProcs, &j.ReqMem, &j.Status, &j.User, &j.Group, &j.Executable, &j.Queue, &j.Partition,
		&j.Preceding, &j.Think, &j.Deadline, &j.Site, &j.MigrationCost, &j.WindowStart, &j.WindowEnd, &j.Level,
	}
}

func formatField(f any) string {
	switch v := f.(type) {
	case *int:
		return strconv.Itoa(*v)
	case *int64:
		return strconv.FormatInt(*v, 10)
	case *float64:
		if math.IsNaN(*v) {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	panic("workload: unknown field type")
}

// maxExact is 2^53: every integer up to it is exact in a float64, so a
// time beyond it cannot be represented to the second.
const maxExact = 1 << 53

// nanColumns are the float columns whose unknown value is NaN (empty in
// CSV, null in JSON Lines); the other float columns write −1 for
// unknown, as SWF does.
var nanColumns = map[string]bool{"deadline": true, "migration_cost": true, "window_start": true, "window_end": true}

// parseField parses the value s of column col into f. Floats must be
// finite decimal numbers within ±2^53 (no NaN, Inf or hex); an empty value
// is accepted only where the format writes one (the NaN columns).
func parseField(f any, col, s string) error {
	switch v := f.(type) {
	case *int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("%s is not an integer", quote.Clip(s))
		}
		*v = n
	case *int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%s is not an integer", quote.Clip(s))
		}
		*v = n
	case *float64:
		if s == "" {
			if nanColumns[col] {
				*v = math.NaN()
				return nil
			}
			return fmt.Errorf("no value (write -1 for unknown)")
		}
		if t := strings.TrimLeft(s, "+-"); strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") || strings.Contains(s, "_") {
			return fmt.Errorf("%s is not a decimal number", quote.Clip(s))
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s is not a finite number", quote.Clip(s))
		}
		if math.Abs(x) >= maxExact {
			return fmt.Errorf("%s is 2^53 or more (not exact in a float64)", quote.Text(s))
		}
		*v = x
	}
	return nil
}

// Writer writes jobs in one format.
type Writer struct {
	f      Format
	w      *bufio.Writer
	csv    *csv.Writer
	header swf.Header
	n      int
}

// NewWriter writes jobs to w in format f; header is written for SWF.
func NewWriter(w io.Writer, f Format, header swf.Header) *Writer {
	wr := &Writer{f: f, w: bufio.NewWriterSize(w, 1<<16), header: header}
	if f == FormatCSV {
		wr.csv = csv.NewWriter(wr.w)
	}
	return wr
}

// Write writes one job.
func (w *Writer) Write(j *model.Job) error {
	first := w.n == 0
	w.n++
	switch w.f {
	case FormatCSV:
		if first {
			if err := w.csv.Write(Columns); err != nil {
				return err
			}
		}
		fs := fields(j)
		rec := make([]string, len(fs))
		for i, f := range fs {
			rec[i] = formatField(f)
		}
		return w.csv.Write(rec)
	case FormatJSONL:
		var b bytes.Buffer
		b.WriteByte('{')
		for i, f := range fields(j) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + Columns[i] + `":`)
			if s := formatField(f); s == "" {
				b.WriteString("null")
			} else {
				b.WriteString(s)
			}
		}
		b.WriteString("}\n")
		_, err := w.w.Write(b.Bytes())
		return err
	default:
		if first {
			if err := swf.NewWriter(w.w).WriteHeader(w.header); err != nil {
				return err
			}
		}
		r := ToSWF(j)
		sw := swf.NewWriter(w.w)
		if err := sw.Write(&r); err != nil {
			return err
		}
		return sw.Flush()
	}
}

// Flush finishes the output.
func (w *Writer) Flush() error {
	if w.csv != nil {
		w.csv.Flush()
		if err := w.csv.Error(); err != nil {
			return err
		}
	}
	return w.w.Flush()
}

// ToSWF maps a job to an SWF record: what SWF can hold. The submission
// site goes to the partition field (site k ↔ partition k+1), the job type
// to the queue field, the estimate to the requested time; deadlines,
// migration costs, reservation windows and levels are lost.
func ToSWF(j *model.Job) swf.Record {
	part := j.Partition
	if j.Site >= 0 {
		part = j.Site + 1
	}
	status := j.Status
	return swf.Record{
		Job: j.ID, Submit: j.Submit, Wait: j.TraceWait, Run: j.Runtime, Alloc: j.Procs, AvgCPU: j.AvgCPU,
		UsedMem: j.UsedMem, ReqProcs: j.ReqProcs, ReqTime: j.Estimate, ReqMem: j.ReqMem, Status: status,
		User: j.User, Group: j.Group, Executable: j.Executable, Queue: j.Queue, Partition: part,
		Preceding: j.Preceding, Think: j.Think,
	}
}

// WriteFile writes jobs to path in the format its name says, atomically
// (internal/atomicfile: a failed or killed write leaves no part of it).
func WriteFile(path string, jobs []model.Job, header swf.Header) error {
	return atomicfile.Write(path, 0o644, func(f io.Writer) error {
		w := NewWriter(f, FormatOf(path), header)
		for i := range jobs {
			if err := w.Write(&jobs[i]); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}

// Load reads a workload in any format (by file name), applying rules and
// the transform as LoadSWF does.
func Load(path string, rules Rules, t Transform) (*Workload, error) {
	if FormatOf(path) == FormatSWF {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory, not a workload file", path)
		}
		return LoadSWF(path, rules, t)
	}
	f, err := openWorkload(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b := newBuilder(path, rules, t, 1024)
	var readErr error
	if FormatOf(path) == FormatCSV {
		readErr = readCSV(f, path, b)
	} else {
		readErr = readJSONL(f, path, b)
	}
	if readErr != nil {
		return nil, readErr
	}
	return b.finish(nil)
}

// openWorkload opens a workload file, refusing a directory.
func openWorkload(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory, not a workload file", path)
	}
	return f, nil
}

// MaxCSVRecord is the longest record (line, or lines of one quoted
// field) of a CSV workload: a job's fields are short, and a 300 MB cell
// must be refused before it is held.
const MaxCSVRecord = 1 << 20

// errRecordTooLong is returned by recordLimit.
var errRecordTooLong = errors.New("record too long")

// recordLimit fails a read once more than max bytes have been read since
// the last reset (readCSV resets it after every record).
type recordLimit struct {
	r      io.Reader
	n, max int
}

func (l *recordLimit) Read(p []byte) (int, error) {
	if l.n > l.max {
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

func readCSV(r io.Reader, name string, b *builder) error {
	lim := &recordLimit{r: r, max: MaxCSVRecord + 1<<16} // + the read-ahead of the buffer
	cr := csv.NewReader(bufio.NewReaderSize(lim, 1<<16))
	cr.ReuseRecord = true
	tooLong := func(line int) error {
		return fmt.Errorf("%s:%d: a record longer than %d bytes (a job's fields are short numbers)", name, line, MaxCSVRecord)
	}
	head, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%s:1: the file is empty (want a header line: %s)", name, strings.Join(Columns, ","))
	}
	if errors.Is(err, errRecordTooLong) {
		return tooLong(1)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot read the header: %w", name, err)
	}
	lim.n = 0
	last := 1
	pos := make([]int, len(Columns)) // column index in the file per Columns entry, −1 if absent
	for i := range pos {
		pos[i] = -1
	}
	for i, h := range head {
		k := slices.Index(Columns, strings.TrimSpace(h))
		_, col := cr.FieldPos(i)
		if k < 0 {
			return fmt.Errorf("%s:1:%d: unknown column %s (known: %s)", name, col, quote.Clip(h), strings.Join(Columns, ", "))
		}
		if pos[k] >= 0 {
			_, first := cr.FieldPos(pos[k])
			return fmt.Errorf("%s:1:%d: column %s appears twice (first at column %d)", name, col, quote.Clip(h), first)
		}
		pos[k] = i
	}
	for _, need := range []string{"id", "submit", "runtime", "procs"} {
		if pos[slices.Index(Columns, need)] < 0 {
			return fmt.Errorf("%s:1: column %q is required", name, need)
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, errRecordTooLong) {
			return tooLong(last + 1)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		lim.n = 0
		last, _ = cr.FieldPos(len(rec) - 1)
		j := model.NewJob(0, 0, 0, 0)
		j.Own() // fields(&j) fills them in place
		for k, f := range fields(&j) {
			if pos[k] < 0 {
				continue
			}
			if err := parseField(f, Columns[k], strings.TrimSpace(rec[pos[k]])); err != nil {
				line, col := cr.FieldPos(pos[k])
				return fmt.Errorf("%s:%d:%d: column %s: %v", name, line, col, Columns[k], err)
			}
		}
		j.Compact()
		if b.add(j) {
			return nil
		}
	}
}

// MaxJSONLine is the longest line of a JSON Lines workload.
const MaxJSONLine = 1 << 20

func readJSONL(r io.Reader, name string, b *builder) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), MaxJSONLine)
	line := 1
	for ; sc.Scan(); line++ {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		j := model.NewJob(0, 0, 0, 0)
		j.Own() // parseJSONJob fills them in place
		if err := parseJSONJob(sc.Bytes(), &j); err != nil {
			return fmt.Errorf("%s:%d:%s", name, line, err)
		}
		j.Compact()
		if b.add(j) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: the line is longer than %d bytes (one job per line)", name, line, MaxJSONLine)
		}
		return fmt.Errorf("%s:%d: %w", name, line, err)
	}
	return nil
}

// parseJSONJob parses one JSON Lines record into j. Its errors start with
// the column ("12: field submit: ...") so the caller prefixes file:line.
func parseJSONJob(lineBytes []byte, j *model.Job) error {
	col := func(off int64) int { return int(off) + 1 }
	dec := json.NewDecoder(bytes.NewReader(lineBytes))
	dec.UseNumber()
	lead := len(lineBytes) - len(bytes.TrimLeft(lineBytes, " \t\r"))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return errors.New(fmt.Sprintf("%d: want a JSON object, one job per line", lead+1) + errSuffix(err))
	}
	fs := fields(j)
	seen := map[string]int{}
	for dec.More() {
		off := dec.InputOffset()
		kt, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%d: %v", col(off), err)
		}
		k, _ := kt.(string)
		keyCol := col(off) + len(lineBytes[off:]) - len(bytes.TrimLeft(lineBytes[off:], " \t,"))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%d: field %s: %v", keyCol, k, err)
		}
		i := slices.Index(Columns, k)
		if i < 0 {
			return fmt.Errorf("%d: unknown field %s (known: %s)", keyCol, quote.Clip(k), strings.Join(Columns, ", "))
		}
		if first, dup := seen[k]; dup {
			return fmt.Errorf("%d: field %s appears twice (first at column %d)", keyCol, quote.Clip(k), first)
		}
		seen[k] = keyCol
		s := string(raw)
		if s == "null" {
			s = ""
		} else if len(s) > 0 && (s[0] == '"' || s[0] == '{' || s[0] == '[' || s[0] == 't' || s[0] == 'f') {
			return fmt.Errorf("%d: field %s: want a number, got %s", keyCol, k, quote.Text(s))
		}
		if err := parseField(fs[i], k, s); err != nil {
			return fmt.Errorf("%d: field %s: %v", keyCol, k, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%d: %v", col(dec.InputOffset()), err)
	}
	if rest := bytes.TrimSpace(lineBytes[dec.InputOffset():]); len(rest) > 0 {
		return fmt.Errorf("%d: text after the JSON object", col(dec.InputOffset())+1)
	}
	for _, need := range []string{"id", "submit", "runtime", "procs"} {
		if _, ok := seen[need]; !ok {
			return fmt.Errorf("%d: field %q is required", lead+1, need)
		}
	}
	return nil
}

func errSuffix(err error) string {
	if err != nil {
		return " (" + err.Error() + ")"
	}
	return ""
}

// ParseOnly reads every record of a workload file and returns how many
// there are, building nothing: the cost of reading and parsing the file,
// the yardstick for a whole simulation (issue 19: a run should cost a few
// parse-only passes). SWF records are parsed field by field; the native
// formats are loaded (their parse builds the jobs).
func ParseOnly(path string) (int, error) {
	if FormatOf(path) != FormatSWF {
		w, err := Load(path, Rules{}, Transform{})
		if err != nil {
			return 0, err
		}
		return w.Records, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return 0, fmt.Errorf("%s: is a directory, not a workload file", path)
	}
	r, f, err := swf.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		n++
	}
}
