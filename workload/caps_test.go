package workload

import (
	"bytes"
	"strings"
	"testing"
)

// TestRecordCaps (issue 25): a CSV record or JSON line over 1 MiB is
// refused at its line before it is held (a 300 MB cell once took 3 GB),
// a quoted field spread over many short lines too, and no error quotes
// more than about 80 characters of a cell.
func TestRecordCaps(t *testing.T) {
	big := strings.Repeat("7", 2<<20)
	for _, c := range []struct {
		name, data, want string
		csv              bool
	}{
		{"csv cell", "id,submit,runtime,procs\n1,0,10,1\n2," + big + ",10,1\n", "w.csv:3: a record longer than 1048576 bytes", true},
		{"csv multi-line field", "id,submit,runtime,procs\n1,0,10,\"" + strings.Repeat("1\n", 1<<20) + "\"\n", "w.csv:2: a record longer than 1048576 bytes", true},
		{"csv header", "id,submit,runtime,procs," + big + "\n", "w.csv:1: a record longer than 1048576 bytes", true},
		{"csv long bad cell", "id,submit,runtime,procs\n1,x" + strings.Repeat("y", 100000) + ",10,1\n", `w.csv:2:3: column submit: "xyyy`, true},
		{"jsonl line", `{"id":1,"submit":` + big + `}` + "\n", "w.jsonl:1: the line is longer than 1048576 bytes", false},
		{"jsonl long text", `{"id":1,"submit":"` + strings.Repeat("z", 100000) + `"}` + "\n", `w.jsonl:1:9: field submit: want a number, got "zzz`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "w.jsonl"
			if c.csv {
				name = "w.csv"
			}
			b := newBuilder(name, Rules{}, Transform{}, 16)
			var err error
			if c.csv {
				err = readCSV(bytes.NewReader([]byte(c.data)), name, b)
			} else {
				err = readJSONL(bytes.NewReader([]byte(c.data)), name, b)
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %.300v\nwant prefix %q", err, c.want)
			}
			if len(err.Error()) > 400 {
				t.Errorf("the message is %d bytes long: %.200s…", len(err.Error()), err)
			}
		})
	}
}
