package output_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gridsched/gridsched/engine"
	. "github.com/gridsched/gridsched/internal/simtest"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/swf"
)

// The classic backfilling case plus J4 (1 proc, asks 4 s, needs 9): at
// 2.5 nothing is free; at 7 it would end at 11, after J2's shadow time 10,
// and there are no extra processors; so it starts after J2, at 15, and is
// killed at its estimate, 19.
func run(t *testing.T) *engine.Engine {
	return Run(t, model.Uniform("t", 4, 1), Jobs(
		J(1).At(0).Procs(2).Run(10).Est(10).User(3),
		J(2).At(1).Procs(4).Run(5).Est(5).User(4),
		J(3).At(2).Procs(2).Run(5).Est(5).User(3),
		J(4).At(2.5).Procs(1).Run(9).Est(4).User(5),
	), policy.NewEASY(policy.FirstFit{}), engine.Options{})
}

func TestJobsCSV(t *testing.T) {
	var b bytes.Buffer
	if err := output.WriteJobs(&b, run(t).Jobs()); err != nil {
		t.Fatal(err)
	}
	want := `job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,bounded_slowdown,user,preemptions,lost_time
1,w0,0,2,10,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1,0-1,1,3,0,0
2,w0,1,4,5,1,COMPLETED_SUCCESSFULLY,10,5,15,9,14,2.8,0-3,1.4,4,0,0
3,w0,2,2,5,1,COMPLETED_SUCCESSFULLY,2,5,7,0,5,1,2-3,1,3,0,0
4,w0,2.5,1,4,0,COMPLETED_WALLTIME_REACHED,15,4,19,12.5,16.5,4.125,0,1.65,5,0,0
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("jobs.csv (-want +got):\n%s", diff)
	}
}

// TestJobColumnsFollowBatsim checks our jobs.csv columns against Batsim's
// out_jobs.csv list (Batsim's docs, "Output files": job_id, workload_name,
// profile... as written by batsim's export.cpp): every Batsim column we
// have comes first and in Batsim's order, so evalys's JobSet (which needs
// workload_name for plot(with_details=True)) reads the file.
func TestJobColumnsFollowBatsim(t *testing.T) {
	batsim := []string{"job_id", "workload_name", "submission_time", "requested_number_of_resources",
		"requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
		"waiting_time", "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata"}
	notModelled := map[string]bool{"consumed_energy": true, "metadata": true}
	k := 0
	for _, c := range batsim {
		if notModelled[c] {
			continue
		}
		if k >= len(output.JobColumns) || output.JobColumns[k] != c {
			t.Fatalf("column %d: want Batsim's %q, have %v", k, c, output.JobColumns)
		}
		k++
	}
	var b bytes.Buffer
	if err := output.WriteJobsOf(&b, run(t).Jobs(), "SDSC, 1998"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n1,\"SDSC, 1998\",0,") {
		t.Errorf("workload_name not written (quoted): %s", b.String())
	}
}

// TestScheduleSWF: the simulated schedule is SWF with the simulated wait,
// run and status, and reads back with our own reader.
func TestScheduleSWF(t *testing.T) {
	var b bytes.Buffer
	e := run(t)
	if err := output.WriteScheduleSWF(&b, e.Jobs(), swf.Header{{Key: "MaxProcs", Value: "4"}}, "test", 4); err != nil {
		t.Fatal(err)
	}
	want := `; Version: 2.2
; MaxProcs: 4
; MaxRecords: 4
; Note: test
1 0 0 10 2 -1 -1 -1 10 -1 1 3 -1 -1 -1 -1 -1 -1
2 1 9 5 4 -1 -1 -1 5 -1 1 4 -1 -1 -1 -1 -1 -1
3 2 0 5 2 -1 -1 -1 5 -1 1 3 -1 -1 -1 -1 -1 -1
4 3 12 4 1 -1 -1 -1 4 -1 0 5 -1 -1 -1 -1 -1 -1
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("schedule.swf (-want +got):\n%s", diff)
	}
}

// TestScheduleSWFKeepsHeader: the input header comes out verbatim (the
// archive's copyright notice, continuation lines, the banner), the record
// counts are this file's, and every field is an integer (issue 18, item
// 14).
func TestScheduleSWFKeepsHeader(t *testing.T) {
	in := `;   --- SWF file from the Parallel Workloads Archive ---
; Version: 2.2
; Copyright: Copyright (C) the archive. Permission to use
;            the log is granted provided this notice is kept.
; Information: http://www.cs.huji.ac.il/labs/parallel/workload/
;              http://www.cs.huji.ac.il/labs/parallel/workload/logs.html
; MaxJobs: 999
; MaxRecords: 999
`
	r, err := swf.NewReader(strings.NewReader(in+"1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 1 -1 -1\n"), "in.swf")
	if err != nil {
		t.Fatal(err)
	}
	r.Next()
	var b bytes.Buffer
	e := run(t)
	if err := output.WriteScheduleSWF(&b, e.Jobs(), r.Header(), "test", 4); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(in, "; MaxJobs: 999", "; MaxJobs: 4", 1), "; MaxRecords: 999", "; MaxRecords: 4", 1) + "; MaxProcs: 4\n; Note: test\n"
	if got := b.String()[:len(want)]; got != want {
		t.Errorf("header:\n%s\nwant:\n%s", got, want)
	}
	rr, _ := swf.NewReader(&b, "out.swf")
	for {
		rec, err := rr.Next()
		if err != nil {
			break
		}
		for _, v := range []float64{rec.Submit, rec.Wait, rec.Run, rec.ReqTime} {
			if v != math.Trunc(v) {
				t.Fatalf("non-integer field in %+v", rec)
			}
		}
		if rec.ReqTime > 0 && rec.Run > rec.ReqTime {
			t.Fatalf("run longer than requested: %+v", rec)
		}
	}
	for _, f := range rr.Header() {
		if strings.EqualFold(f.Key, "http") {
			t.Fatalf("a URL continuation read as a key: %+v", f)
		}
	}
}
