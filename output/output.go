// Package output writes simulation results: the per-job CSV (Batsim
// jobs.csv column names where the meaning is the same, so tools such as
// evalys read it), the summary as JSON and as a table, the schedule as
// SWF, and the time series as CSV. Every writer is deterministic: the
// same results give byte-identical files.
package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gridsched/gridsched/distsum"
	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/swf"
)

// JobColumns are the columns of jobs.csv: Batsim's first (in Batsim's
// order, without consumed_energy and metadata, which we do not model),
// then ours.
var JobColumns = []string{
	"job_id", "workload_name", "submission_time", "requested_number_of_resources", "requested_time",
	"success", "final_state", "starting_time", "execution_time", "finish_time",
	"waiting_time", "turnaround_time", "stretch", "allocated_resources",
	"bounded_slowdown", "user", "preemptions", "lost_time",
}

// FinalState names a job's end as Batsim does.
func FinalState(s engine.State, started bool) string {
	switch s {
	case engine.Completed:
		return "COMPLETED_SUCCESSFULLY"
	case engine.Killed:
		return "COMPLETED_WALLTIME_REACHED"
	case engine.Failed:
		return "COMPLETED_FAILED"
	case engine.Dropped:
		if started {
			return "COMPLETED_KILLED"
		}
		return "REJECTED"
	}
	return "NOT_FINISHED"
}

func num(b []byte, v float64) []byte {
	if math.IsNaN(v) {
		return b
	}
	return swf.AppendNum(b, v)
}

// DefaultWorkloadName is the workload_name of jobs.csv when none is
// given: Batsim names its first workload "w0".
const DefaultWorkloadName = "w0"

// WriteJobs writes one CSV row per job, with workload_name
// DefaultWorkloadName. Unknown values are empty.
func WriteJobs(w io.Writer, jobs []*engine.Job) error {
	return WriteJobsOf(w, jobs, DefaultWorkloadName)
}

// WriteJobsOf writes one CSV row per job (its metrics.Record, computed
// row by row, not held); workload_name is workload (Batsim's meaning: the
// name of the workload the job came from).
func WriteJobsOf(w io.Writer, jobs []*engine.Job, workload string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(strings.Join(JobColumns, ",") + "\n")
	name := csvField(workload)
	b := make([]byte, 0, 256)
	for _, j := range jobs {
		rec := metrics.RecordOf(j)
		r := &rec
		b = b[:0]
		b = strconv.AppendInt(b, r.ID, 10)
		b = append(b, ',')
		b = append(b, name...)
		b = append(b, ',')
		b = num(b, r.Submit)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Procs), 10)
		b = append(b, ',')
		b = num(b, r.SchedEstimate())
		b = append(b, ',')
		if r.State == engine.Completed {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
		b = append(b, ',')
		b = append(b, FinalState(r.State, !math.IsNaN(r.Start))...)
		for _, v := range []float64{r.Start, r.Run, r.End, r.Wait, r.Response, r.Slowdown} {
			b = append(b, ',')
			b = num(b, v)
		}
		b = append(b, ',')
		if !math.IsNaN(r.Start) {
			// Quoted when it holds a space (several node ranges).
			q := len(b)
			b = r.Alloc.Append(append(b, '"'))
			if bytes.IndexByte(b[q+1:], ' ') >= 0 {
				b = append(b, '"')
			} else {
				b = append(b[:q], b[q+1:]...)
			}
		}
		b = append(b, ',')
		b = num(b, r.BSLD)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.User), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Preemptions), 10)
		b = append(b, ',')
		b = num(b, r.LostTime)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// csvField quotes s when CSV needs it.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r ") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// WriteSummaryJSON writes the summary as indented JSON (keys in a fixed
// order; map keys sorted).
func WriteSummaryJSON(w io.Writer, s *metrics.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteSummaryTable writes the summary as a readable table.
func WriteSummaryTable(w io.Writer, s *metrics.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "policy\t%s\n", s.Policy)
	fmt.Fprintf(tw, "workload\t%s\n", s.Workload)
	fmt.Fprintf(tw, "platform\t%s, %d processors\n", s.Platform, s.Processors)
	fmt.Fprintf(tw, "jobs\t%d simulated: %d completed, %d killed, %d failed, %d dropped (REJECTED or COMPLETED_KILLED in jobs.csv), %d unfinished\n",
		s.Jobs, s.Completed, s.Killed, s.Failed, s.Dropped, s.Unfinished)
	if len(s.Skipped) > 0 {
		keys := make([]string, 0, len(s.Skipped))
		total := 0
		for k, v := range s.Skipped {
			keys = append(keys, k)
			total += v
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, s.Skipped[k])
		}
		fmt.Fprintf(tw, "skipped\t%d trace records: %s\n", total, strings.Join(parts, ", "))
	}
	if s.Completed+s.Killed == 0 {
		fmt.Fprintf(tw, "metrics\tnone: no job ran to an end\n")
		return tw.Flush()
	}
	fmt.Fprintf(tw, "\tmean\tmedian\tp95\tmax\n")
	row := func(name string, d distsum.Summary, unit string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, f(d.Mean, unit), f(d.Median, unit), f(d.P95, unit), f(d.Max, unit))
	}
	unit, day := "s", 86400.0
	if s.TimeUnit == "h" {
		unit, day = "h", 24
	}
	row("wait", s.Wait, unit)
	row("response", s.Response, unit)
	row("bounded slowdown", s.BSLD, "")
	fmt.Fprintf(tw, "utilization\t%.4f\n", s.Utilization)
	fmt.Fprintf(tw, "makespan\t%s (%.2f days)\n", f(s.Makespan, unit), s.Makespan/day)
	fmt.Fprintf(tw, "throughput\t%.3f jobs/hour\n", s.Throughput)
	return tw.Flush()
}

func f(v float64, unit string) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'e', 3, 64) + unit
	}
	if unit == "h" {
		return strconv.FormatFloat(v, 'f', 3, 64) + unit
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + unit
}

// WriteScheduleSWF writes the simulated schedule as SWF: each job's
// trace fields with wait time, run time, allocated processors and status
// replaced by the simulated ones (status 1 completed, 0 killed or failed,
// 5 dropped or never started; wait and run −1 if it never started).
//
// The input header is kept verbatim (a trace's copyright notice must
// stay), except the record counts (MaxJobs, MaxRecords), which are
// rewritten to this file's; a Version line, MaxProcs (maxProcs, when the
// input has none) and a note naming the policy are added. Every field is
// an integer, as SWF asks: times are rounded to the second (start and
// end each, so a run never exceeds its rounded-up request).
func WriteScheduleSWF(w io.Writer, jobs []*engine.Job, header swf.Header, note string, maxProcs int) error {
	sw := swf.NewWriter(w)
	var h swf.Header
	if _, ok := header.Get("Version"); !ok {
		h = append(h, swf.HeaderField{Key: "Version", Value: "2.2"})
	}
	count := strconv.Itoa(len(jobs))
	for _, f := range header {
		if strings.EqualFold(f.Key, "MaxJobs") || strings.EqualFold(f.Key, "MaxRecords") {
			f = swf.HeaderField{Key: f.Key, Value: count}
		}
		h = append(h, f)
	}
	if _, ok := header.Get("MaxProcs"); !ok && maxProcs > 0 {
		h = append(h, swf.HeaderField{Key: "MaxProcs", Value: strconv.Itoa(maxProcs)})
	}
	if _, ok := header.Get("MaxRecords"); !ok {
		h = append(h, swf.HeaderField{Key: "MaxRecords", Value: count})
	}
	h = append(h, swf.HeaderField{Key: "Note", Value: note})
	if err := sw.WriteHeader(h); err != nil {
		return err
	}
	// round keeps −1 (unknown) and rounds the rest to whole seconds.
	round := func(v float64) float64 {
		if v < 0 || math.IsNaN(v) {
			return v
		}
		return math.Round(v)
	}
	for _, j := range jobs {
		req := j.Estimate
		if req > 0 {
			req = math.Ceil(req)
		}
		submit := round(j.Submit)
		r := swf.Record{
			Job: j.ID, Submit: submit, Wait: -1, Run: -1, Alloc: j.Procs, AvgCPU: round(j.AvgCPU), UsedMem: round(j.UsedMem),
			ReqProcs: j.ReqProcs, ReqTime: req, ReqMem: round(j.ReqMem), Status: 5, User: j.User, Group: j.Group,
			Executable: j.Executable, Queue: j.Queue, Partition: j.Partition, Preceding: j.Preceding, Think: round(j.Think),
		}
		if !math.IsNaN(j.Start) {
			start := math.Round(j.Start)
			r.Wait = start - submit
			if !math.IsNaN(j.End) {
				r.Run = math.Round(j.End) - start
			}
			switch j.State {
			case engine.Completed:
				r.Status = 1
			case engine.Killed, engine.Failed:
				r.Status = 0
			}
		}
		if err := sw.Write(&r); err != nil {
			return err
		}
	}
	return sw.Flush()
}

// WriteSeries writes the time series as CSV.
func WriteSeries(w io.Writer, s *metrics.Series) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("time,busy_processors,available_processors,utilization,queued_jobs,running_jobs\n")
	b := make([]byte, 0, 64)
	for p := range s.All() {
		b = swf.AppendNum(b[:0], p.Time)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.Busy), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.Avail), 10)
		b = append(b, ',')
		u := 0.0
		if p.Avail > 0 {
			u = float64(p.Busy) / float64(p.Avail)
		}
		b = strconv.AppendFloat(b, u, 'f', 6, 64)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.Queued), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.Running), 10)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
