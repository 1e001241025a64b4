package cloud

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/distsum"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/system"
)

// Files a cloud run writes besides jobs.csv, summary.json and series.csv.
const (
	VMsFile    = "vms.csv"
	SeriesFile = "cloud_series.csv"
)

// The elastic cloud of seed 003: a loop system (its own event loop: the
// VM pool grows and shrinks, which the engine's fixed platform does not),
// the policies cloud-afcfs and cloud-ljfs, the section "cloud" (Params;
// keys left out take DefaultParams' values) and its metrics. Its time
// unit is the model's hour (mean service 1/μ = 1): the workload's SWF
// seconds are converted at the boundary, and every time it reports —
// metrics, jobs.csv, vms.csv, the series — is in hours.
func init() {
	nan := math.NaN()
	system.Register(&system.System{
		Name:        "cloud",
		Description: "gang scheduling on an elastic cloud with migration, starvation control and VM cost (seed 003)",
		Order:       40,
		TimeUnit:    "h",
		Section:     "cloud",
		NewParams:   func() any { p := DefaultParams(); return &p },
		Prepare: func(v any, _ func(string) string) (any, error) {
			p := *v.(*Params)
			p.Defaults()
			if err := p.Check(1); err != nil {
				return nil, err
			}
			return &p, nil
		},
		Policies: []system.Policy{
			{Name: "cloud-afcfs", Description: "elastic cloud (seed 003): adaptive first come first served, a job starts when all its VMs are idle, later jobs may pass a blocked one"},
			{Name: "cloud-ljfs", Description: "elastic cloud (seed 003): largest job first served, ties by arrival"},
		},
		OwnsPolicy: func(name string) bool { return strings.HasPrefix(name, "cloud-") },
		ParamLabels: map[string]string{"alf": "average load factor threshold ALF (tasks per VM; 0 = off)", "xfactor": "XFactor (starvation threshold; 0 = off)",
			"migration": "migration rule", "max_vms": "VM pool cap (VMs; 0 = none)", "monitor_limit": "migration monitor limit (0 = none)",
			"monitor": "migration monitor counts", "overhead": "migration overhead (h)", "boot_max": "longest VM boot delay (h)",
			"lease_cooldown": "lease cooldown (h; 0 = none)", "release_hold": "release hold rule", "billing": "billing granularity (h; 0 = exact)",
			"tau": "bounded-slowdown bound τ (h)"},
		Metrics: []system.Metric{
			{Key: "migrations", Name: "migrations", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "tasks_migrated", Name: "migrated tasks", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "starved", Name: "starved jobs", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "lease_time", Name: "lease time", Unit: "VM × h", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "cost", Name: "cost", Unit: "price units", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "max_vms", Name: "largest VM pool", Unit: "VMs", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "vm_utilization", Name: "VM utilization", Unit: "fraction", Min: 0, Max: 1},
			{Key: "cpe", Name: "CPE", Unit: "relative change", Min: nan, Max: nan},
			{Key: "cpe_lt", Name: "CPE's lease-time term", Unit: "relative change", Min: nan, Max: nan},
			{Key: "cpe_rt", Name: "CPE's response-time term", Unit: "relative change", Min: nan, Max: nan},
			{Key: "starved_dispatcher", Name: "jobs starving in the dispatcher", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "paused_dispatcher", Name: "instants paused by jobs in the dispatcher", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "vms_leased", Name: "VMs leased", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			// The wait decomposed (Result's fields of the same names).
			{Key: "wait_dispatcher", Name: "mean wait in the dispatcher", Unit: "h", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "wait_vm_queue", Name: "mean wait in VM queues", Unit: "h", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "lease_jobs", Name: "jobs whose arrival leased VMs", Unit: "fraction", Min: 0, Max: 1},
			{Key: "wait_lease_jobs", Name: "mean wait of jobs whose arrival leased VMs", Unit: "h", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "wait_other_jobs", Name: "mean wait of the other jobs", Unit: "h", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "tasks_ahead", Name: "largest load on a job's VMs at dispatch", Unit: "tasks", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "empty_dispatch", Name: "jobs dispatched onto VMs with no task", Unit: "fraction", Min: 0, Max: 1},
			{Key: "alf_arrival", Name: "ALF seen by arrivals", Unit: "tasks per VM", Min: 0, Max: nan},
			{Key: "pool_arrival", Name: "leased VMs seen by arrivals", Unit: "VMs", Min: 0, Max: nan},
			{Key: "idle_arrival", Name: "idle VMs seen by arrivals", Unit: "VMs", Min: 0, Max: nan},
			{Key: "wait_migrated", Name: "mean wait of the jobs that migrated", Unit: "h", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "bsld_over_10", Name: "jobs with bounded slowdown above 10", Unit: "fraction", LowerIsBetter: true, Min: 0, Max: 1},
			{Key: "bsld_over_20", Name: "jobs with bounded slowdown above 20", Unit: "fraction", LowerIsBetter: true, Min: 0, Max: 1},
		},
		Files: []system.File{
			{Name: VMsFile, Description: "one row per VM ever leased: lease, ready and release times (h), busy time (h), cost"},
			{Name: SeriesFile, Description: "the cloud's state after every scheduling instant (time in h)", Series: &system.Series{Time: "time", Figures: []system.SeriesFigure{
				{Title: "VMs", YLabel: "VMs (count)", Columns: []string{"leased_vms", "booting_vms", "busy_vms", "idle_vms"}},
				{Title: "Cumulative lease time and cost", YLabel: "VM × h, price units", Columns: []string{"lease_time", "cost"}},
				{Title: "Queues", YLabel: "jobs or tasks (count)", Columns: []string{"dispatcher_jobs", "queued_jobs", "queued_tasks", "running_jobs"}},
				{Title: "Average load factor (formula 3)", YLabel: "queued tasks per leased VM", Columns: []string{"alf"}},
				{Title: "Demand control and migration", YLabel: "count", Columns: []string{"starving_jobs", "paused", "migrations"}},
			}}},
		},
		Simulate: simulate,
	})
}

// ParamsFor returns the parameters of a run of policy (cloud-afcfs,
// cloud-ljfs) from a prepared section (nil: the defaults).
func ParamsFor(policy string, prepared any) (Params, error) {
	p := DefaultParams()
	if prepared != nil {
		p = *prepared.(*Params)
	}
	d, ok := strings.CutPrefix(policy, "cloud-")
	if !ok || (d != "afcfs" && d != "ljfs") {
		return p, fmt.Errorf("unknown cloud gang policy %q (known: cloud-afcfs, cloud-ljfs)", policy)
	}
	p.Policy = d
	p.Defaults()
	return p, nil
}

// simulate is the cloud's run: the jobs in SWF seconds go to the model in
// hours.
func simulate(in system.LoopInput, prepared any) (*system.Outcome, error) {
	p, err := ParamsFor(in.Policy, prepared)
	if err != nil {
		return nil, err
	}
	s, err := New(Hours(in.Jobs), p, in.Seed)
	if err != nil {
		return nil, err
	}
	var rec *Recorder
	if in.Series {
		rec = s.Record()
	}
	if err := s.Run(); err != nil {
		return nil, err
	}
	res := s.Result()
	m := res.Metrics()
	out := &system.Outcome{Metrics: m, Summary: s.summary(res, in)}
	for k, v := range m {
		switch k {
		case "jobs", "mean_response", "mean_wait", "mean_bsld", "makespan":
		default:
			if out.Summary.Extra == nil {
				out.Summary.Extra = map[string]float64{}
			}
			out.Summary.Extra[k] = v
		}
	}
	out.Files = []system.OutFile{
		{Name: "jobs.csv", Write: func(w io.Writer) error { return s.WriteJobs(w, in.Workload) }},
		{Name: VMsFile, Write: s.WriteVMs},
	}
	if rec != nil {
		out.Files = append(out.Files,
			system.OutFile{Name: "series.csv", Write: rec.WriteCommonSeries},
			system.OutFile{Name: SeriesFile, Write: rec.WriteSeries})
	}
	return out, nil
}

// Metrics are the run's metric values by key (times in hours).
func (r Result) Metrics() map[string]float64 {
	return map[string]float64{
		"jobs": float64(r.Jobs), "mean_response": r.MeanResponse, "mean_wait": r.MeanWait,
		"mean_bsld": r.MeanBSLD, "makespan": r.Makespan, "migrations": float64(r.Migrations),
		"tasks_migrated": float64(r.TasksMoved), "starved": float64(r.Starved), "lease_time": r.LeaseTime,
		"cost": r.Cost, "max_vms": float64(r.MaxVMs), "vm_utilization": r.Utilization,
		"starved_dispatcher": float64(r.StarvedAtDispatcher), "paused_dispatcher": float64(r.PausedByDispatcher),
		"vms_leased":      float64(r.VMsLeased),
		"wait_dispatcher": r.WaitDispatcher, "wait_vm_queue": r.WaitVMQueue, "lease_jobs": r.LeaseJobs,
		"wait_lease_jobs": r.WaitLeaseJobs, "wait_other_jobs": r.WaitOtherJobs, "tasks_ahead": r.TasksAhead,
		"empty_dispatch": r.EmptyDispatch, "alf_arrival": r.ALFAtArrival, "pool_arrival": r.PoolAtArrival,
		"idle_arrival": r.IdleAtArrival, "wait_migrated": r.WaitMigrated,
		"bsld_over_10": r.BSLDOver10, "bsld_over_20": r.BSLDOver20,
	}
}

// summary is the run summary in the common shape, times in hours (its
// means are the Result's, so the summary and the metrics agree exactly).
func (s *Sim) summary(res Result, in system.LoopInput) metrics.Summary {
	sum := metrics.Summary{Policy: in.Policy, Workload: in.Workload, TimeUnit: "h", Jobs: len(s.jobs), Skipped: map[string]int{},
		Platform: fmt.Sprintf("elastic cloud (largest pool %d VMs, %d leased in all)", res.MaxVMs, res.VMsLeased), Processors: res.MaxVMs}
	var wait, resp, bsld []float64
	sum.FirstSubmit, sum.LastEnd = math.Inf(1), math.Inf(-1)
	for _, j := range s.jobs {
		sum.FirstSubmit = min(sum.FirstSubmit, j.Arrival)
		if math.IsNaN(j.End) {
			sum.Unfinished++
			continue
		}
		sum.Completed++
		sum.LastEnd = max(sum.LastEnd, j.End)
		rt := j.End - j.Arrival
		wait = append(wait, j.Start-j.Arrival)
		resp = append(resp, rt)
		bsld = append(bsld, max(1, rt/max(s.p.Tau, j.Service)))
	}
	if sum.Completed == 0 {
		sum.FirstSubmit, sum.LastEnd = 0, 0
		return sum
	}
	sum.Wait, sum.Response, sum.BSLD = distsum.Of(wait), distsum.Of(resp), distsum.Of(bsld)
	sum.Wait.Mean, sum.Response.Mean, sum.BSLD.Mean = res.MeanWait, res.MeanResponse, res.MeanBSLD
	sum.Makespan = res.Makespan
	sum.Utilization = res.Utilization
	if sum.Makespan > 0 {
		sum.Throughput = float64(sum.Completed) / sum.Makespan // per hour: times are hours
	}
	return sum
}

// WriteJobs writes jobs.csv: the common columns (Batsim's names; times in
// hours; allocated_resources are the VMs of the job's tasks when it
// started) and the gang's own: migrated (0/1) and starving (0/1: it
// entered demand control).
func (s *Sim) WriteJobs(w io.Writer, workload string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(strings.Join(JobColumns, ",") + "\n")
	if workload == "" {
		workload = "w0"
	}
	if strings.ContainsAny(workload, ",\"\n\r ") {
		workload = `"` + strings.ReplaceAll(workload, `"`, `""`) + `"`
	}
	var b []byte
	for _, j := range s.jobs {
		b = strconv.AppendInt(b[:0], j.ID, 10)
		b = append(b, ',')
		b = append(b, workload...)
		b = append(b, ',')
		b = appendF(b, j.Arrival)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(j.Size), 10)
		b = append(b, ',')
		b = appendF(b, j.Service)
		done := !math.IsNaN(j.End)
		if done {
			b = append(b, ",1,COMPLETED_SUCCESSFULLY"...)
		} else {
			b = append(b, ",0,UNFINISHED"...)
		}
		rt, wait, resp, sld, bsld := math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		if !math.IsNaN(j.Start) {
			wait = j.Start - j.Arrival
		}
		if done {
			rt = j.End - j.Start
			resp = j.End - j.Arrival
			if rt > 0 {
				sld = resp / rt
			}
			bsld = max(1, resp/max(s.p.Tau, j.Service))
		}
		for _, v := range []float64{j.Start, rt, j.End, wait, resp, sld} {
			b = append(b, ',')
			b = appendF(b, v)
		}
		b = append(b, ',')
		if !math.IsNaN(j.Start) {
			b = appendRanges(b, j.VMs)
		}
		b = append(b, ',')
		b = appendF(b, bsld)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(j.Size), 10)
		b = append(b, ',', boolDigit(j.Migrated), ',', boolDigit(j.Starving), '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// JobColumns are jobs.csv's columns for a cloud run.
var JobColumns = []string{"job_id", "workload_name", "submission_time", "requested_number_of_resources", "requested_time",
	"success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch",
	"allocated_resources", "bounded_slowdown", "gang_size", "migrated", "starving"}

func boolDigit(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// appendRanges writes sorted ids as Batsim's interval set "0-3 7",
// quoted when it has a space.
func appendRanges(b []byte, ids []int) []byte {
	var parts []byte
	for i := 0; i < len(ids); {
		k := i
		for k+1 < len(ids) && ids[k+1] == ids[k]+1 {
			k++
		}
		if len(parts) > 0 {
			parts = append(parts, ' ')
		}
		parts = strconv.AppendInt(parts, int64(ids[i]), 10)
		if k > i {
			parts = append(parts, '-')
			parts = strconv.AppendInt(parts, int64(ids[k]), 10)
		}
		i = k + 1
	}
	if len(ids) > 1 && strings.ContainsRune(string(parts), ' ') {
		return append(append(append(b, '"'), parts...), '"')
	}
	return append(b, parts...)
}

// WriteVMs writes vms.csv: per VM ever leased, its lease, ready and
// release times, busy time (all in hours) and cost (billed as the
// parameters say).
func (s *Sim) WriteVMs(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("vm_id,lease_time,ready_time,release_time,busy_time,cost\n")
	var b []byte
	for _, v := range s.vms {
		b = strconv.AppendInt(b[:0], int64(v.ID), 10)
		for _, x := range []float64{v.LeasedAt, v.ReadyAt, v.ReleasedAt, v.busyTime} {
			b = append(b, ',')
			b = appendF(b, x)
		}
		b = append(b, ',')
		b = appendF(b, s.billed(v.ReleasedAt-v.LeasedAt))
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
