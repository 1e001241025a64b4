package report

import (
	"github.com/gridsched/gridsched/system"

	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// eachCSV reads a CSV file row by row (the record is reused: copy what
// you keep): head is called with the header, row with each record and its
// line number. A file with no header is an error; a missing file is
// returned as is (os.IsNotExist).
func eachCSV(path string, head func([]string) error, row func(line int, rec []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<16))
	r.ReuseRecord = true
	h, err := r.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: empty (not even a header)", path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := head(append([]string(nil), h...)); err != nil {
		return err
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := row(line, rec); err != nil {
			return err
		}
	}
}

func column(head []string, name string) int {
	for i, h := range head {
		if h == name {
			return i
		}
	}
	return -1
}

// Run is one simulation read back from the folder `gridsched simulate
// --out DIR` wrote.
type Run struct {
	Dir, Name string
	Summary   map[string]any // summary.json (nil: none)
	// per job
	Sizes, Runtimes, Waits, Responses, BSLDs, Inter []float64
	WaitBySize                                      map[int][]float64 // power-of-two size class → waits
	Gantt                                           []GanttJob
	Nodes                                           int
	// series.csv (nil: none)
	T, Util, Queued, Running []float64
	// TimeScale converts the run's times to seconds (3600 for a system
	// that reports hours); every time above is already in seconds.
	TimeScale float64
	// Extra are the time series a system declares (package system) that
	// the folder has.
	Extra []SeriesFile
}

// SeriesFile is a system's declared series file read back.
type SeriesFile struct {
	Name    string
	T       []float64 // seconds
	Columns map[string][]float64
	Figures []system.SeriesFigure
}

// LoadRun reads a simulate folder: jobs.csv (required), summary.json and
// series.csv (optional).
func LoadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), WaitBySize: map[int][]float64{}, TimeScale: 1}
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		if err := json.Unmarshal(b, &r.Summary); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
		}
	}
	switch tu, _ := r.Summary["time_unit"].(string); tu {
	case "", "s":
	case "h":
		r.TimeScale = 3600
	default:
		return nil, fmt.Errorf("%s: time_unit %q: want s or h", filepath.Join(dir, "summary.json"), tu)
	}
	ts := func(v float64) float64 { return v * r.TimeScale }
	path := filepath.Join(dir, "jobs.csv")
	var head []string
	var iSub, iStart, iEnd, iProcs, iRun, iAlloc, iID, iBSLD int
	lastSub := math.NaN()
	maxNode := -1
	err := eachCSV(path, func(h []string) error {
		head = h
		c := func(n string) int { return column(head, n) }
		iSub, iStart, iEnd, iProcs, iRun, iAlloc, iID = c("submission_time"), c("starting_time"), c("finish_time"), c("requested_number_of_resources"), c("execution_time"), c("allocated_resources"), c("job_id")
		iBSLD = c("bounded_slowdown")
		if iSub < 0 || iStart < 0 || iEnd < 0 || iProcs < 0 || iRun < 0 || iAlloc < 0 || iID < 0 {
			return fmt.Errorf("%s: not a gridsched jobs.csv (columns %v)", path, head)
		}
		return nil
	}, func(line int, row []string) error {
		if len(row) != len(head) {
			return fmt.Errorf("%s:%d: %d fields, the header has %d", path, line, len(row), len(head))
		}
		sub := ts(ParseFloat(row[iSub]))
		size := ParseFloat(row[iProcs])
		r.Sizes = append(r.Sizes, size)
		if v := ts(ParseFloat(row[iRun])); !math.IsNaN(v) {
			r.Runtimes = append(r.Runtimes, v)
		}
		st, en := ts(ParseFloat(row[iStart])), ts(ParseFloat(row[iEnd]))
		if !math.IsNaN(st) {
			r.Waits = append(r.Waits, st-sub)
			r.WaitBySize[sizeClass(size)] = append(r.WaitBySize[sizeClass(size)], st-sub)
		}
		if !math.IsNaN(en) {
			r.Responses = append(r.Responses, en-sub)
		}
		if iBSLD >= 0 {
			if v := ParseFloat(row[iBSLD]); !math.IsNaN(v) {
				r.BSLDs = append(r.BSLDs, v)
			}
		}
		if !math.IsNaN(lastSub) {
			r.Inter = append(r.Inter, sub-lastSub)
		}
		lastSub = sub
		if !math.IsNaN(st) && !math.IsNaN(en) {
			id, _ := strconv.ParseInt(row[iID], 10, 64)
			g := GanttJob{ID: id, Start: st, End: en}
			for _, part := range strings.Fields(row[iAlloc]) {
				a, b, _ := strings.Cut(part, "-")
				lo, err1 := strconv.Atoi(a)
				hi := lo
				var err2 error
				if b != "" {
					hi, err2 = strconv.Atoi(b)
				}
				if err1 != nil || err2 != nil || hi < lo || lo < 0 {
					return fmt.Errorf("%s:%d: allocated_resources: %q is not a node range", path, line, part)
				}
				g.Nodes = append(g.Nodes, [2]int{lo, hi})
				maxNode = max(maxNode, hi)
			}
			r.Gantt = append(r.Gantt, g)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.Nodes = maxNode + 1
	var it, iu, iq, ir int
	sp := filepath.Join(dir, "series.csv")
	err = eachCSV(sp, func(sh []string) error {
		it, iu, iq, ir = column(sh, "time"), column(sh, "utilization"), column(sh, "queued_jobs"), column(sh, "running_jobs")
		return nil
	}, func(line int, row []string) error {
		if it < 0 || iu < 0 || iq < 0 || ir < 0 {
			return nil
		}
		if len(row) <= max(it, iu, iq, ir) {
			return fmt.Errorf("%s:%d: %d fields", sp, line, len(row))
		}
		r.T = append(r.T, ts(ParseFloat(row[it])))
		r.Util = append(r.Util, ParseFloat(row[iu]))
		r.Queued = append(r.Queued, ParseFloat(row[iq]))
		r.Running = append(r.Running, ParseFloat(row[ir]))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, sys := range system.All() {
		for _, f := range sys.Files {
			if f.Series == nil {
				continue
			}
			fp := filepath.Join(dir, f.Name)
			sf := SeriesFile{Name: f.Name, Columns: map[string][]float64{}, Figures: f.Series.Figures}
			var sh []string
			it := -1
			cols := make([][]float64, 0)
			err := eachCSV(fp, func(h []string) error {
				sh = h
				if it = column(sh, f.Series.Time); it < 0 {
					return fmt.Errorf("%s: no %s column", fp, f.Series.Time)
				}
				cols = make([][]float64, len(sh))
				return nil
			}, func(line int, row []string) error {
				if len(row) != len(sh) {
					return fmt.Errorf("%s:%d: %d fields, the header has %d", fp, line, len(row), len(sh))
				}
				sf.T = append(sf.T, ts(ParseFloat(row[it])))
				for i := range sh {
					if i != it {
						cols[i] = append(cols[i], ParseFloat(row[i]))
					}
				}
				return nil
			})
			if os.IsNotExist(err) {
				continue // the folder is not this system's run
			}
			if err != nil {
				return nil, err
			}
			for i, c := range sh {
				if i != it {
					sf.Columns[c] = cols[i]
				}
			}
			r.Extra = append(r.Extra, sf)
		}
	}
	return r, nil
}

// sizeClass is the power-of-two class of a job size: 0 for 1 processor,
// k for sizes in (2^(k−1), 2^k].
func sizeClass(v float64) int {
	if v <= 1 {
		return 0
	}
	return int(math.Ceil(math.Log2(v)))
}

func sizeClassName(k int) string {
	switch k {
	case 0:
		return "1"
	case 1:
		return "2"
	}
	return fmt.Sprintf("%d–%d", 1<<(k-1)+1, 1<<k)
}

// summaryTable turns summary.json into rows (nested objects flattened,
// numbers in human form).
func summaryTable(sums []map[string]any, names []string) Table {
	t := Table{Title: "Summary", Columns: append([]string{"quantity"}, names...)}
	keys := map[string]bool{}
	var order []string
	flat := make([]map[string]string, len(sums))
	for i, s := range sums {
		flat[i] = map[string]string{}
		flatten("", s, flat[i])
		ks := make([]string, 0, len(flat[i]))
		for k := range flat[i] {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if !keys[k] {
				keys[k] = true
				order = append(order, k)
			}
		}
	}
	for _, k := range order {
		row := []string{k}
		for i := range sums {
			v, ok := flat[i][k]
			if !ok {
				v = "–"
			}
			row = append(row, v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// summaryNum writes a summary's number: a whole number (a count of jobs,
// a wait in whole seconds) exactly, with thousands separators (54,034
// jobs, not "54.03 k"); others in human form.
func summaryNum(x float64) string {
	if x != math.Trunc(x) || math.Abs(x) >= 1e15 {
		return HumanNum(x)
	}
	s := strconv.FormatInt(int64(math.Abs(x)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if x < 0 {
		s = "-" + s
	}
	return s
}

func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, y := range x {
			name := k
			if prefix != "" {
				name = prefix + "." + k
			}
			flatten(name, y, out)
		}
	case float64:
		out[prefix] = summaryNum(x)
	case nil:
		out[prefix] = "–"
	default:
		out[prefix] = fmt.Sprint(x)
	}
}

// schedule is a run's jobs on the rows its charts draw (Slotted).
type schedule struct {
	jobs  []GanttJob
	nodes int
	note  string
}

// RunOptions choose what a run's section shows.
type RunOptions struct {
	// Window is the moving-average window of time series (seconds; 0:
	// the mean of each time bucket).
	Window float64
	// Gantt chooses the Gantt chart's window and caps.
	Gantt GanttOptions
	// Interactive adds the zoom-and-pan views of a single run (its time
	// series and its schedule) to the section.
	Interactive bool
}

// RunSection builds the report section of one simulation folder.
func RunSection(dir string, opt RunOptions) (Section, error) {
	r, err := LoadRun(dir)
	if err != nil {
		return Section{Title: "Simulation " + filepath.Base(filepath.Clean(dir))}, err
	}
	return RunsSection([]*Run{r}, opt)
}

// RunsSection builds one section for one or several runs: the summary as
// a table (a column per run); wait, response and bounded-slowdown CDFs
// and box plots with every run on shared axes; mean wait by job size
// class; utilization and queue length over time (several runs share one
// figure of each, every run drawn over its own time span); per run its
// declared series, the Gantt chart of a window and the overview of the
// whole run, and its workload's sizes, runtimes and inter-arrival times.
// A run without jobs gets a note instead of figures.
func RunsSection(runs []*Run, opt RunOptions) (Section, error) {
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	sec := Section{Title: "Simulation " + strings.Join(names, " vs ")}
	var sums []map[string]any
	for _, r := range runs {
		sums = append(sums, r.Summary)
	}
	if len(runs) > 0 && runs[0].Summary != nil {
		sec.Lead = append(sec.Lead, summaryTable(sums, names))
	}
	prefix := sanitizeName(strings.Join(names, "-"))
	add := func(f Figure, err error) error {
		if err != nil {
			return err
		}
		sec.Figures = append(sec.Figures, f)
		return nil
	}
	var live []*Run
	for _, r := range runs {
		if len(r.Sizes) == 0 {
			sec.Notes = append(sec.Notes, fmt.Sprintf("%s: no jobs (jobs.csv has only its header): nothing to draw.", r.Name))
			continue
		}
		if len(r.Waits) == 0 || len(r.Responses) == 0 || len(r.BSLDs) == 0 {
			sec.Notes = append(sec.Notes, fmt.Sprintf("%s: no job ran to an end: no wait, response or slowdown to draw.", r.Name))
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return sec, nil
	}
	var ln []string
	var waits, resps, bslds [][]float64
	for _, r := range live {
		ln = append(ln, r.Name)
		waits, resps, bslds = append(waits, r.Waits), append(resps, r.Responses), append(bslds, r.BSLDs)
	}
	for _, c := range []struct {
		key, title string
		data       [][]float64
	}{
		{"wait", "Wait", waits}, {"response", "Response time", resps}, {"bsld", "Bounded slowdown", bslds},
	} {
		unit := "s"
		if c.key == "bsld" {
			unit = "ratio"
		}
		if err := add(CDFFigure(prefix+"-cdf-"+c.key, c.title+": distribution", strings.ToLower(c.title)+" ("+unit+")", c.data, ln, true)); err != nil {
			return sec, err
		}
		if len(live) > 1 {
			if err := add(BoxFigure(prefix+"-box-"+c.key, c.title+" per run", strings.ToLower(c.title)+" ("+unit+")", c.data, ln, true)); err != nil {
				return sec, err
			}
		}
	}
	if err := add(waitBySizeFigure(prefix+"-wait-by-size", live)); err != nil {
		return sec, err
	}
	if len(live) > 1 {
		var util, queued []StepLine
		for _, r := range live {
			if len(r.T) > 1 {
				util = append(util, StepLine{r.Name, r.T, r.Util})
				queued = append(queued, StepLine{r.Name, r.T, r.Queued})
			}
		}
		if len(util) > 0 {
			if err := add(StepFigure(prefix+"-utilization", "Utilization over time", "utilization (fraction of processors)", util, opt.Window)); err != nil {
				return sec, err
			}
			if err := add(StepFigure(prefix+"-queue", "Queued jobs over time", "queued jobs (count)", queued, opt.Window)); err != nil {
				return sec, err
			}
		}
	}
	scheds := make([]schedule, len(live))
	for i, r := range live {
		p := sanitizeName(r.Name)
		sched := &scheds[i]
		sched.jobs, sched.nodes, sched.note = Slotted(r.Gantt, r.Nodes)
		if len(r.T) > 1 && len(live) == 1 {
			if err := add(StepFigure(p+"-utilization", r.Name+": utilization over time", "utilization (fraction of processors)", []StepLine{{"", r.T, r.Util}}, opt.Window)); err != nil {
				return sec, err
			}
			figs, err := StepFigures(p+"-queue", r.Name+": queued and running jobs", "jobs (count)", []StepLine{{"queued", r.T, r.Queued}, {"running", r.T, r.Running}}, opt.Window)
			if err != nil {
				return sec, err
			}
			sec.Figures = append(sec.Figures, figs...)
		}
		for _, sf := range r.Extra {
			if len(sf.T) < 2 {
				continue
			}
			for k, fig := range sf.Figures {
				var lines []StepLine
				for _, c := range fig.Columns {
					if ys, ok := sf.Columns[c]; ok {
						lines = append(lines, StepLine{c, sf.T, ys})
					}
				}
				if len(lines) == 0 {
					continue
				}
				name := fmt.Sprintf("%s-%s-%d", p, sanitizeName(strings.TrimSuffix(sf.Name, ".csv")), k)
				figs, err := StepFigures(name, r.Name+": "+fig.Title+" over time ("+sf.Name+")", fig.YLabel, lines, opt.Window)
				if err != nil {
					return sec, err
				}
				sec.Figures = append(sec.Figures, figs...)
			}
		}
		if len(r.Gantt) > 0 {
			if err := add(ganttFigure(p+"-gantt", r.Name+": schedule (Gantt chart)", sched.jobs, sched.nodes, sched.note, opt.Gantt)); err != nil {
				return sec, err
			}
			if err := add(overviewFigure(p+"-overview", r.Name+": the whole run (busy nodes)", sched.jobs, sched.nodes, sched.note)); err != nil {
				return sec, err
			}
		}
		if err := add(HistogramFigure(p+"-sizes", r.Name+": job sizes", "processors (power-of-two bins)", r.Sizes)); err != nil {
			return sec, err
		}
		if err := add(CDFFigure(p+"-runtimes", r.Name+": runtimes and inter-arrival times", "seconds (s)", [][]float64{r.Runtimes, r.Inter}, []string{"runtime", "inter-arrival"}, true)); err != nil {
			return sec, err
		}
	}
	if opt.Interactive && len(live) == 1 {
		views, err := runViews(live[0], scheds[0], opt.Gantt)
		if err != nil {
			return sec, err
		}
		sec.Views = views
	}
	return sec, nil
}

// waitBySizeFigure draws the mean wait per power-of-two size class, one
// line per run.
func waitBySizeFigure(name string, runs []*Run) (Figure, error) {
	maxK := 0
	for _, r := range runs {
		for k := range r.WaitBySize {
			maxK = max(maxK, k)
		}
	}
	var cats []string
	for k := 0; k <= maxK; k++ {
		cats = append(cats, sizeClassName(k))
	}
	var series []Series
	for _, r := range runs {
		s := Series{Name: r.Name}
		for k := 0; k <= maxK; k++ {
			w := r.WaitBySize[k]
			if len(w) == 0 {
				continue
			}
			sum := 0.0
			for _, v := range w {
				sum += v
			}
			s.X = append(s.X, float64(k))
			s.Y = append(s.Y, sum/float64(len(w)))
			s.Err = append(s.Err, math.NaN())
		}
		series = append(series, s)
	}
	return SweepFigure(name, Sweep{Title: "Mean wait by job size class", XLabel: "job size (processors)", SeriesLabel: "run", Metric: MetricInfo("mean_wait"), Series: series, Categories: cats,
		Caption: "Mean wait of the started jobs in each power-of-two size class, one line per run"})
}

// sanitizeName keeps letters, digits, - and _ for file names.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}
