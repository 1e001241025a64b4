package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridsched/gridsched/internal/testenv"
)

// The report's size and time bounds (issue 29): `report` on one
// 100,000-job elastic-cloud run within 10 s and 10 MB, a comparison of
// three runs within 5 MB. The benchmarks report the bytes written
// (MB/report) and the process's CPU time per report (cpu-s/op) beside
// the wall time, which on a shared machine mostly says how busy it was.

var benchRuns struct {
	once sync.Once
	dir  string
	err  error
}

// benchRunsDir simulates, once per test binary, the runs the report
// benchmarks draw: a 100,000-job gang workload on the elastic cloud
// (cloud-ljfs, a pool of at most 64 VMs) and SDSC-SP2 under fcfs, easy and
// conservative.
func benchRunsDir(b *testing.B) string {
	b.Helper()
	benchRuns.once.Do(func() {
		dir, err := os.MkdirTemp("", "gridsched-report-bench-")
		if err != nil {
			benchRuns.err = err
			return
		}
		benchRuns.dir = dir
		wl := filepath.Join(dir, "gang.swf")
		steps := [][]string{
			{"workload", "generate", "--model", "gang", "--param", "lambda=2.5", "--jobs", "100000", "--out", wl},
			{"simulate", "--policy", "cloud-ljfs", "--workload", wl, "--model-param", "cloud.max_vms=64", "--out", filepath.Join(dir, "cloud100k")},
		}
		trace := filepath.Join(testenv.TracesDir(b), "SDSC-SP2-1998-4.2-cln.swf.gz")
		for _, p := range []string{"fcfs", "easy", "conservative"} {
			steps = append(steps, []string{"simulate", "--policy", p, "--workload", trace, "--out", filepath.Join(dir, "sp2-"+p)})
		}
		for _, s := range steps {
			if _, err := run(s...); err != nil {
				benchRuns.err = err
				return
			}
		}
	})
	if benchRuns.err != nil {
		b.Fatal(benchRuns.err)
	}
	return benchRuns.dir
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func folderBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// benchReport times `gridsched report ARGS --out OUT` and reports its
// size and CPU time.
func benchReport(b *testing.B, args ...string) {
	out := filepath.Join(b.TempDir(), "report")
	var size int64
	cpu0 := processCPU()
	n := 0
	for b.Loop() {
		os.RemoveAll(out)
		if _, err := run(append(append([]string{"report"}, args...), "--out", out)...); err != nil {
			b.Fatal(err)
		}
		size = folderBytes(b, out)
		n++
	}
	b.ReportMetric(float64(size)/1e6, "MB/report")
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(n), "cpu-s/op")
}

// BenchmarkReportCloud100k: the report of one 100,000-job cloud run.
func BenchmarkReportCloud100k(b *testing.B) {
	dir := benchRunsDir(b)
	benchReport(b, filepath.Join(dir, "cloud100k"))
}

// BenchmarkReportCompare3: three runs of SDSC-SP2 (fcfs, easy,
// conservative) compared on shared axes.
func BenchmarkReportCompare3(b *testing.B) {
	dir := benchRunsDir(b)
	benchReport(b, filepath.Join(dir, "sp2-fcfs"), filepath.Join(dir, "sp2-easy"), filepath.Join(dir, "sp2-conservative"))
}
