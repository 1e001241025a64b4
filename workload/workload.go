// Package workload turns workload sources (SWF traces) into the jobs a
// simulation runs, applying the documented rules for records that cannot
// be simulated and the user's transforms.
package workload

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/swf"
)

// Reasons a trace record is not simulated, in the order they are tested.
// Each skipped record is counted under the first reason that applies.
const (
	// SkipNoRuntime: run time is unknown (−1). Mostly jobs cancelled
	// before they started.
	SkipNoRuntime = "no-runtime"
	// SkipNoProcs: neither allocated (field 5) nor requested (field 8)
	// processors are known.
	SkipNoProcs = "no-processors"
	// SkipCancelled: status 5 (cancelled) with run time 0: the job never
	// ran. Kept as a zero-length job with Rules.KeepCancelled.
	SkipCancelled = "cancelled-before-start"
	// SkipTooWide: the job needs more processors than the platform has.
	// Clamped instead with Rules.ClampWide.
	SkipTooWide = "too-wide"
)

// SkipReasons lists every reason in test order.
var SkipReasons = []string{SkipNoRuntime, SkipNoProcs, SkipCancelled, SkipTooWide}

// Rules say what to do with records that cannot be simulated as they are.
type Rules struct {
	KeepCancelled bool // simulate cancelled-before-start records as zero-length jobs
	ClampWide     bool // clamp too-wide jobs to the platform size instead of skipping them
}

// Transform changes a trace before simulation. Zero values mean "no
// change".
type Transform struct {
	Skip     int     // drop the first Skip records (trace lines, before any rule)
	First    int     // then keep at most First records
	Scale    float64 // multiply every submit time by Scale (< 1 raises the offered load by 1/Scale)
	MaxProcs int     // clamp every job's processor count to MaxProcs
	// Estimates: "" or "requested" (the trace's requested time, field 9,
	// estimates the run time, field 4), "exact" (every job's estimate is
	// its run time) or "gridsim" (GridSim's Workload reader: a job's
	// length is its requested time where the trace gives one, else its
	// run time, and the estimate is that length).
	Estimates string
}

// Validate reports a transform parameter out of range.
func (t Transform) Validate() error {
	switch {
	case t.Skip < 0:
		return fmt.Errorf("skip must be >= 0, got %d", t.Skip)
	case t.First < 0:
		return fmt.Errorf("first must be >= 0, got %d", t.First)
	case t.Scale < 0 || math.IsNaN(t.Scale) || math.IsInf(t.Scale, 0):
		return fmt.Errorf("arrival scale must be a positive number, got %g", t.Scale)
	case t.MaxProcs < 0:
		return fmt.Errorf("processor cap must be >= 0, got %d", t.MaxProcs)
	case t.Estimates != "" && t.Estimates != "requested" && t.Estimates != "exact" && t.Estimates != "gridsim":
		return fmt.Errorf("estimates: want requested, exact or gridsim, got %q", t.Estimates)
	}
	return nil
}

// Workload is a loaded trace.
type Workload struct {
	Name    string
	Header  swf.Header
	Jobs    []model.Job    // sorted by submit time (stable)
	Records int            // records read (after Skip/First)
	Skipped map[string]int // records not simulated, by reason
	// UnsortedSteps counts records whose submit time is earlier than the
	// previous record's (they are sorted before simulation).
	UnsortedSteps int
}

// SkippedTotal is the number of records not simulated.
func (w *Workload) SkippedTotal() int {
	n := 0
	for _, c := range w.Skipped {
		n += c
	}
	return n
}

// MaxProcs is the platform size the trace header states: MaxProcs, else
// MaxNodes; 0 if neither is given.
func (w *Workload) MaxProcs() int {
	if n, ok := w.Header.Int("MaxProcs"); ok && n > 0 {
		return int(n)
	}
	if n, ok := w.Header.Int("MaxNodes"); ok && n > 0 {
		return int(n)
	}
	return 0
}

// LoadSWF reads an SWF file (plain or gzip), applying rules and t. Records
// that cannot be simulated are counted in Skipped, never dropped
// silently. Too-wide jobs are only detected by FitPlatform, once the
// platform is known.
func LoadSWF(path string, rules Rules, t Transform) (*Workload, error) {
	r, f, err := swf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer r.Close()
	return read(r, path, rules, t, func() int { return lineHint(path) })
}

// lineHint bounds the number of records of the SWF file at path when its
// header does not say (MaxRecords): the lines of a plain file long enough
// to be a record (counted in one pass, far cheaper than parsing), or for
// a gzip file its uncompressed size (the trailer's ISIZE) times the share
// of such lines in its first 64 KiB, plus 5 %, and at most what a
// 20-fold compression of its bytes would hold. 0 when it cannot tell. The
// job list is then made once instead of growing by copying (issue 30: 45
// % of a replay's allocations); a wrong guess only costs the growth, and
// no file makes it allocate much more than its own size.
func lineHint(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return 0
	}
	if magic != [2]byte{0x1f, 0x8b} {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0
		}
		n, _ := recordLines(f)
		return n
	}
	st, err := f.Stat()
	if err != nil || st.Size() < 18 {
		return 0
	}
	var trailer [4]byte
	if _, err := f.ReadAt(trailer[:], st.Size()-4); err != nil {
		return 0
	}
	size := int64(binary.LittleEndian.Uint32(trailer[:]))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		return 0
	}
	lines, k := recordLines(io.LimitReader(z, 64<<10))
	if lines == 0 || k > size {
		return 0 // no record line, or a size past 4 GiB (ISIZE wraps)
	}
	n := size * int64(lines) / k * 21 / 20
	return int(min(n, st.Size()*20/minRecordLine))
}

// minRecordLine is the shortest line that can hold an SWF record: 18
// fields and the blanks between them.
const minRecordLine = 35

// recordLines counts the lines of r at least minRecordLine bytes long
// (a last line without a newline included), and the bytes read.
func recordLines(r io.Reader) (int, int64) {
	n, run, total := 0, 0, int64(0)
	buf := make([]byte, 1<<20)
	for {
		k, err := r.Read(buf)
		total += int64(k)
		b := buf[:k]
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				run += len(b)
				break
			}
			if run+i >= minRecordLine {
				n++
			}
			run, b = 0, b[i+1:]
		}
		if err != nil {
			if run >= minRecordLine {
				n++
			}
			return n, total
		}
	}
}

// Read loads a workload from an SWF reader.
func Read(r *swf.Reader, name string, rules Rules, t Transform) (*Workload, error) {
	return read(r, name, rules, t, nil)
}

// read is Read; lines, if set, bounds the records when the header does
// not (lineHint).
func read(r *swf.Reader, name string, rules Rules, t Transform, lines func() int) (*Workload, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var b *builder
	var cold swfCold
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if b == nil {
			// The header is known once the first record is read.
			b = newBuilder(name, rules, t, capacityHint(r.Header(), t, lines))
		}
		if b.add(cold.job(&rec)) {
			break
		}
	}
	if b == nil {
		b = newBuilder(name, rules, t, 0)
	}
	return b.finish(r.Header())
}

// FromJobs applies rules and the transform to jobs (in submit order, e.g.
// from a generator), as loading a file does. header may be nil.
func FromJobs(name string, jobs []model.Job, header swf.Header, rules Rules, t Transform) (*Workload, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b := newBuilder(name, rules, t, len(jobs))
	for _, j := range jobs {
		if b.add(j) {
			break
		}
	}
	return b.finish(header)
}

// builder applies the transform and the rules to jobs in file order.
type builder struct {
	w          *Workload
	rules      Rules
	t          Transform
	seen       int
	lastSubmit float64
	// latest and work bound the simulated time: no schedule of these
	// jobs ends before latest (the last submit) and a work-conserving one
	// ends by latest + work (the sum of each job's longer of run time and
	// estimate); crossing names the record at which the bound first
	// reached MaxHorizon.
	latest, work float64
	crossing     int
}

func newBuilder(name string, rules Rules, t Transform, capacity int) *builder {
	return &builder{
		w:     &Workload{Name: name, Skipped: map[string]int{}, Jobs: make([]model.Job, 0, capacity)},
		rules: rules, t: t, lastSubmit: math.Inf(-1),
	}
}

// add takes the next record; it reports true when no more are wanted.
func (b *builder) add(j model.Job) bool {
	b.seen++
	if b.seen <= b.t.Skip {
		return false
	}
	w := b.w
	if b.t.First > 0 && w.Records >= b.t.First {
		return true
	}
	w.Records++
	if j.Submit < b.lastSubmit {
		w.UnsortedSteps++
	}
	b.lastSubmit = j.Submit
	if reason := unusable(&j, b.rules); reason != "" {
		w.Skipped[reason]++
		return false
	}
	if b.t.Scale > 0 {
		j.Submit *= b.t.Scale
	}
	if b.t.MaxProcs > 0 && j.Procs > b.t.MaxProcs {
		j.Procs = b.t.MaxProcs
	}
	switch b.t.Estimates {
	case "exact":
		j.Estimate = j.Runtime
	case "gridsim":
		if j.Estimate > 0 {
			j.Runtime = j.Estimate
		}
		j.Estimate = j.Runtime
	}
	w.Jobs = append(w.Jobs, j)
	b.latest = max(b.latest, j.Submit)
	b.work += max(j.Runtime, j.Estimate, 0)
	if b.crossing == 0 && b.latest+b.work >= MaxHorizon {
		b.crossing = b.seen
	}
	return false
}

// MaxHorizon (2^52 s, about 143 million years) bounds a workload's time
// horizon, its last submit time plus its total work: simulated times are
// float64 seconds, exact to the second only below 2^53, and the factor 2
// leaves room for waits. A workload beyond it is refused rather than
// simulated with times rounded (a job submitted at 9007199254740990 s
// with a run time of 5 s would otherwise respond in 6 s).
const MaxHorizon = 1 << 52

func (b *builder) finish(h swf.Header) (*Workload, error) {
	if b.crossing > 0 {
		return nil, fmt.Errorf("%s: record %d: the workload's time horizon (last submit time %.0f s plus total work %.0f s) reaches 2^52 s; simulated times past it are not exact to the second in float64 (shift the submit times down or trim the trace with --first/--skip)",
			b.w.Name, b.crossing, b.latest, b.work)
	}
	b.w.Header = h
	SortBySubmit(b.w.Jobs)
	return b.w, nil
}

// SortBySubmit sorts jobs by submit time, keeping the order of equal
// times.
func SortBySubmit(jobs []model.Job) {
	bySubmit := func(a, b model.Job) int {
		switch {
		case a.Submit < b.Submit:
			return -1
		case a.Submit > b.Submit:
			return 1
		}
		return 0
	}
	// Traces are nearly always sorted: checking is one pass, while the
	// stable sort moves 200-byte jobs around even when they are in order.
	for i := 1; i < len(jobs); i++ {
		if jobs[i].Submit < jobs[i-1].Submit {
			slices.SortStableFunc(jobs, bySubmit)
			return
		}
	}
}

// capacityHint guesses the number of jobs from the header (MaxRecords,
// else MaxJobs), else from lines (if set), so that loading does not copy
// the job list while it grows. A header's claim is trusted up to 2^16
// records; past that, the lines that are there bound it (a header can
// claim any number, a file's lines cannot: a generated trace of 10M jobs
// grew its list by copying, 1.6 GB of allocations, issue 30; a one-line
// file claiming 2^22 records made 235 MB), and without a count of them
// it is capped at 2^22.
func capacityHint(h swf.Header, t Transform, lines func() int) int {
	n, ok := h.Int("MaxRecords")
	if !ok {
		n, ok = h.Int("MaxJobs")
	}
	if ok && n > 1<<16 && lines != nil {
		if l := lines(); l > 0 {
			n = min(n, int64(l))
			if t.First > 0 {
				n = min(n, int64(t.First))
			}
			return int(n)
		}
	}
	if (!ok || n <= 0) && lines != nil {
		// Lines that are there, not a header's claim: not capped.
		if n := lines(); n > 0 {
			if t.First > 0 {
				n = min(n, t.First)
			}
			return n
		}
	}
	if !ok || n <= 0 {
		return 1024
	}
	if t.First > 0 {
		n = min(n, int64(t.First))
	}
	return int(min(n, 1<<22))
}

// unusable says why a job cannot be simulated, or "".
func unusable(j *model.Job, rules Rules) string {
	switch {
	case j.Runtime < 0:
		return SkipNoRuntime
	case j.Procs <= 0:
		return SkipNoProcs
	case j.Status == 5 && j.Runtime == 0 && !rules.KeepCancelled:
		return SkipCancelled
	}
	return ""
}

// FromSWF converts one record: processors are the allocated count, else
// the requested one; the partition field gives the submission site
// (partition k ↔ site k−1).
func FromSWF(r *swf.Record) model.Job {
	var c swfCold
	return c.job(r)
}

// swfCold hands out the trace fields of a load's jobs from chunks (one
// allocation per 1,024 jobs instead of one per job) and one ModelFields
// per submission site (a trace's jobs have no other model field). Jobs
// whose trace fields are equal, bit for bit, share one copy (they are
// immutable: model.TraceFields): a generated trace written as SWF has a
// few thousand distinct values for a million jobs. A trace whose first
// swfShareProbe records share less than a quarter of them stops looking
// (real archives' waits and CPU times are mostly distinct), so sharing
// costs a map lookup per job only where it pays.
type swfCold struct {
	chunk []model.TraceFields
	sites map[int]*model.ModelFields
	seen  map[tfKey]*model.TraceFields
	looks int
	hits  int
}

// tfKey is a TraceFields value's bits (so that -0 and 0, and NaNs, stay
// apart).
type tfKey [13]uint64

// swfShareProbe is the number of records after which sharing stops if
// fewer than a quarter of them found an equal earlier value.
const swfShareProbe = 4096

func (c *swfCold) traceFields(t model.TraceFields) *model.TraceFields {
	var k tfKey
	if c.looks >= 0 {
		f := math.Float64bits
		k = tfKey{f(t.TraceWait), f(t.AvgCPU), f(t.UsedMem), uint64(t.ReqProcs), f(t.ReqMem), uint64(t.Status),
			uint64(t.User), uint64(t.Group), uint64(t.Executable), uint64(t.Queue), uint64(t.Partition),
			uint64(t.Preceding), f(t.Think)}
		if p, ok := c.seen[k]; ok {
			c.hits++
			return p
		}
		if c.looks++; c.looks == swfShareProbe && 4*c.hits < c.looks {
			c.looks, c.seen = -1, nil // mostly distinct: stop looking
		}
	}
	if len(c.chunk) == cap(c.chunk) {
		c.chunk = make([]model.TraceFields, 0, 1024)
	}
	c.chunk = append(c.chunk, t)
	p := &c.chunk[len(c.chunk)-1]
	if c.looks >= 0 {
		if c.seen == nil {
			c.seen = map[tfKey]*model.TraceFields{}
		}
		c.seen[k] = p
	}
	return p
}

func (c *swfCold) job(r *swf.Record) model.Job {
	procs := r.Alloc
	if procs <= 0 {
		procs = r.ReqProcs
	}
	j := model.NewJob(r.Job, r.Submit, r.Run, procs)
	j.Estimate = r.ReqTime
	j.TraceFields = c.traceFields(model.TraceFields{
		TraceWait: r.Wait, AvgCPU: r.AvgCPU, UsedMem: r.UsedMem, ReqProcs: r.ReqProcs,
		ReqMem: r.ReqMem, Status: r.Status, User: r.User, Group: r.Group,
		Executable: r.Executable, Queue: r.Queue, Partition: r.Partition,
		Preceding: r.Preceding, Think: r.Think,
	})
	if r.Partition >= 1 {
		m, ok := c.sites[r.Partition]
		if !ok {
			if c.sites == nil {
				c.sites = map[int]*model.ModelFields{}
			}
			v := model.UnknownModelFields
			v.Site = r.Partition - 1
			m = &v
			c.sites[r.Partition] = m
		}
		j.ModelFields = m
	}
	return j
}

// FitPlatform applies the too-wide rule for a platform of pes processors:
// jobs wider than pes are clamped (rules.ClampWide) or removed and counted
// under SkipTooWide.
func (w *Workload) FitPlatform(pes int, rules Rules) {
	out := w.Jobs[:0]
	for _, j := range w.Jobs {
		if j.Procs > pes {
			if !rules.ClampWide {
				w.Skipped[SkipTooWide]++
				continue
			}
			j.Procs = pes
		}
		out = append(out, j)
	}
	clear(w.Jobs[len(out):])
	w.Jobs = out
}
