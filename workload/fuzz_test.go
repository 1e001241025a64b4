package workload

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

// checkFuzzed: whatever a reader accepts is finite, and whatever it
// refuses is refused with the file's name and no formatting slip ("%!"
// from a wrong verb; input that itself holds "%!" may be quoted back)
// (issue 18, item 7).
func checkFuzzed(t *testing.T, name string, data []byte, b *builder, err error) {
	t.Helper()
	if err != nil {
		if !strings.HasPrefix(err.Error(), name+":") || (strings.Contains(err.Error(), "%!") && !bytes.Contains(data, []byte("%!"))) {
			t.Fatalf("error without position: %v", err)
		}
		return
	}
	w, err := b.finish(nil)
	if err != nil {
		if !strings.HasPrefix(err.Error(), name+": record ") {
			t.Fatalf("horizon error without position: %v", err)
		}
		return
	}
	for _, j := range w.Jobs {
		for _, v := range []float64{j.Submit, j.Runtime, j.Estimate, j.TraceWait, j.Think} {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= maxExact {
				t.Fatalf("accepted a non-finite or inexact value: %+v", j)
			}
		}
	}
}

// FuzzCSV fuzzes the native CSV reader.
func FuzzCSV(f *testing.F) {
	f.Add([]byte("id,submit,runtime,procs\n1,0,10,1\n2,5,3,2\n"))
	f.Add([]byte(strings.Join(Columns, ",") + "\n1,0,10,1,10,-1,-1,-1,1,-1,1,1,1,-1,1,1,-1,-1,,-1,,,,-1\n"))
	f.Add([]byte("id,submit,runtime,procs,submit\n1,NaN,,1\n"))
	f.Add([]byte("\"id\",submit\n\"1\n"))
	for _, sp := range testenv.IntegerSpellings { // only decimal numbers are read
		f.Add([]byte("id,submit,runtime,procs\n1," + sp.Text + "," + sp.Text + "," + sp.Text + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := newBuilder("fuzz.csv", Rules{}, Transform{}, 16)
		err := readCSV(bytes.NewReader(data), "fuzz.csv", b)
		checkFuzzed(t, "fuzz.csv", data, b, err)
	})
}

// FuzzJSONL fuzzes the native JSON Lines reader.
func FuzzJSONL(f *testing.F) {
	f.Add([]byte(`{"id":1,"submit":0,"runtime":10,"procs":1}` + "\n"))
	f.Add([]byte(`{"id":1,"submit":0,"runtime":null,"procs":1,"deadline":null}` + "\n\n" + `{"id":2}`))
	f.Add([]byte(`{"id":1,"submit":1e400,"runtime":"x","procs":1,"id":2}`))
	f.Add([]byte("[1]\n{}\n"))
	for _, sp := range testenv.IntegerSpellings {
		f.Add([]byte(`{"id":1,"submit":"` + sp.Text + `","runtime":` + sp.Text + `,"procs":1}` + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := newBuilder("fuzz.jsonl", Rules{}, Transform{}, 16)
		err := readJSONL(bytes.NewReader(data), "fuzz.jsonl", b)
		checkFuzzed(t, "fuzz.jsonl", data, b, err)
	})
}
