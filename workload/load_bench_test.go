package workload

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

// BenchmarkLoadNoMaxRecords loads HPC2N's trace (202,871 records) with
// its MaxRecords and MaxJobs header lines removed, plain and gzip:
// without them the job list is sized from the file's lines (issue 30,
// target 5), not grown by copying. Compare B/op and allocs/op (-benchmem) with the code
// before; BENCHMARKS.md records the ratio.
func BenchmarkLoadNoMaxRecords(b *testing.B) {
	src := testenv.Trace(b, "HPC2N-2002-2.2-cln.swf.gz")
	f, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(zr); err != nil {
		b.Fatal(err)
	}
	f.Close()
	data := regexp.MustCompile(`(?m)^;\s*Max(Records|Jobs):.*\n`).ReplaceAll(raw.Bytes(), nil)
	if bytes.Contains(data, []byte("MaxRecords")) || bytes.Contains(data, []byte("MaxJobs")) {
		b.Fatal("MaxRecords or MaxJobs still in the header")
	}
	dir := b.TempDir()
	plain := filepath.Join(dir, "t.swf")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	gz := filepath.Join(dir, "t.swf.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, path string }{{"plain", plain}, {"gzip", gz}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w, err := LoadSWF(c.path, Rules{}, Transform{})
				if err != nil {
					b.Fatal(err)
				}
				if len(w.Jobs) < 200_000 {
					b.Fatalf("%d jobs", len(w.Jobs))
				}
			}
		})
	}
}
