package simulate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/workload"
)

// TestDeterminism: the same inputs and seed give byte-identical outputs
// (jobs.csv, schedule.swf, summary.json, series.csv) across two runs, for
// every policy, on a real trace and on the built-in generated workload.
func TestDeterminism(t *testing.T) {
	trace := testenv.Trace(t, "SDSC-BLUE-2000-4.2-cln.first1250.swf")
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		for _, wl := range []string{trace, ""} {
			var outs [2]string
			for i := range outs {
				outs[i] = t.TempDir()
				r, err := Run(Config{WorkloadPath: wl, Policy: pol, Seed: 7, Series: true, BuiltinJobs: 500})
				if err != nil {
					t.Fatal(err)
				}
				if err := r.WriteDir(outs[i]); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{JobsFile, ScheduleFile, SummaryFile, SeriesFile} {
				a, err1 := os.ReadFile(filepath.Join(outs[0], f))
				b, err2 := os.ReadFile(filepath.Join(outs[1], f))
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v %v", f, err1, err2)
				}
				if len(a) < 100 || !bytes.Equal(a, b) {
					t.Errorf("%s/%s %q: runs differ or output empty (%d vs %d bytes)", pol, f, wl, len(a), len(b))
				}
			}
		}
	}
	// A different seed must change the generated workload's results.
	r1, _ := Run(Config{Policy: "easy", Seed: 1, BuiltinJobs: 300})
	r2, _ := Run(Config{Policy: "easy", Seed: 2, BuiltinJobs: 300})
	if r1.Summary.Wait == r2.Summary.Wait {
		t.Error("seeds 1 and 2 gave the same built-in workload results")
	}
}

// anomalies parses shared/traces/ANOMALIES.txt: per file, the records
// with run < 0 and with no processor count.
func anomalies(t *testing.T, dir string) map[string][2]int {
	data, err := os.ReadFile(filepath.Join(dir, "ANOMALIES.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int{}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Split(line, "|")
		if len(f) < 5 {
			continue
		}
		run, err1 := strconv.Atoi(strings.TrimSpace(f[3]))
		procs, err2 := strconv.Atoi(strings.TrimSpace(f[4]))
		if err1 != nil || err2 != nil {
			t.Fatalf("ANOMALIES.txt: cannot read %q", line)
		}
		out[strings.TrimSpace(f[0])] = [2]int{run, procs}
	}
	return out
}

// cancelledBeforeStart counts, independently of the loader, the records
// with status 5 and run time 0 that have a processor count.
func cancelledBeforeStart(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	n := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 18 || strings.HasPrefix(fs[0], ";") {
			continue
		}
		if fs[10] == "5" && fs[3] == "0" && (fs[4] != "-1" || fs[7] != "-1") && fs[4] != "0" {
			n++
		}
	}
	return n
}

// TestAllTraces simulates every trace of the shared folder under every
// policy and checks that every simulated job runs, and that the skipped
// records agree with ANOMALIES.txt: no-runtime = its "run<0" column,
// no-processors = its "procs<=0" column.
func TestAllTraces(t *testing.T) {
	dir := testenv.TracesDir(t)
	anom := anomalies(t, dir)
	if len(anom) < 10 {
		t.Fatalf("ANOMALIES.txt lists %d traces", len(anom))
	}
	for name, want := range anom {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, name)
			w, p, err := Load(&Config{WorkloadPath: path})
			if err != nil {
				t.Fatal(err)
			}
			sk := w.Skipped
			if sk[workload.SkipNoRuntime] != want[0] || sk[workload.SkipNoProcs] != want[1] {
				t.Errorf("skipped %v, ANOMALIES.txt says run<0 %d, procs<=0 %d", sk, want[0], want[1])
			}
			if c := cancelledBeforeStart(t, path); sk[workload.SkipCancelled] != c {
				t.Errorf("cancelled-before-start %d, counted %d", sk[workload.SkipCancelled], c)
			}
			if sk[workload.SkipTooWide] != 0 {
				t.Errorf("%d jobs wider than the header's MaxProcs", sk[workload.SkipTooWide])
			}
			if got := len(w.Jobs) + w.SkippedTotal(); got != w.Records {
				t.Errorf("jobs %d + skipped %d != records %d", len(w.Jobs), w.SkippedTotal(), w.Records)
			}
			for _, pol := range []string{"fcfs", "easy", "conservative"} {
				r, err := RunLoaded(Config{WorkloadPath: path, Policy: pol}, w, p)
				if err != nil {
					t.Fatalf("%s: %v", pol, err)
				}
				s := r.Summary
				if s.Completed+s.Killed != len(w.Jobs) || s.Jobs != len(w.Jobs) {
					t.Errorf("%s: %d completed + %d killed of %d jobs", pol, s.Completed, s.Killed, len(w.Jobs))
				}
				if s.Utilization <= 0 || s.Utilization > 1 {
					t.Errorf("%s: utilization %g", pol, s.Utilization)
				}
				for k, v := range sk {
					if v > 0 && s.Skipped[k] != v {
						t.Errorf("%s: summary skipped[%s] = %d, want %d", pol, k, s.Skipped[k], v)
					}
				}
			}
		})
	}
}
