package gen

import (
	"io"
	"testing"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/workload"
)

// BenchmarkGenerate1M streams 1,000,000 jobs of each model into the
// native CSV writer (discarding the bytes): generation plus formatting,
// in constant memory.
func BenchmarkGenerate1M(b *testing.B) {
	for _, name := range []string{"lublin", "grid", "reservations", "gang"} {
		b.Run(name, func(b *testing.B) {
			m, _ := Lookup(name)
			for i := 0; i < b.N; i++ {
				p, _ := m.Params("", nil, nil)
				g, err := m.New(p, uint64(i))
				if err != nil {
					b.Fatal(err)
				}
				w := workload.NewWriter(io.Discard, workload.FormatCSV, nil)
				n := 0
				if err := Stream(g, 1_000_000, func(j *model.Job) error { n++; return w.Write(j) }); err != nil {
					b.Fatal(err)
				}
				w.Flush()
				if n != 1_000_000 {
					b.Fatalf("%d jobs", n)
				}
			}
			b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
