package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesBadInput: every malformed CSV or JSON Lines workload is
// refused with file:line:column and the field (issue 18, items 3 and 6):
// no NaN, no infinity, no hex, no time beyond 2^53, no silently doubled
// column or key, no nil error in a message.
func TestLoadRefusesBadInput(t *testing.T) {
	long := `{"id":1,"submit":0,"runtime":5,"procs":1,"user":` + strings.Repeat("1", MaxJSONLine) + "}\n"
	const head = "id,submit,runtime,procs\n"
	for _, c := range []struct{ name, file, in, want string }{
		{"csv empty submit", "w.csv", head + "1,,5,1\n", "w.csv:2:3: column submit: no value (write -1 for unknown)"},
		{"csv empty runtime", "w.csv", head + "1,0,,1\n", "w.csv:2:5: column runtime: no value (write -1 for unknown)"},
		{"csv NaN", "w.csv", head + "1,NaN,5,1\n", `w.csv:2:3: column submit: "NaN" is not a finite number`},
		{"csv Inf", "w.csv", head + "1,0,+Inf,1\n", `w.csv:2:5: column runtime: "+Inf" is not a finite number`},
		{"csv infinity", "w.csv", head + "1,0,infinity,1\n", `w.csv:2:5: column runtime: "infinity" is not a finite number`},
		{"csv hex", "w.csv", head + "1,0x1p4,5,1\n", `w.csv:2:3: column submit: "0x1p4" is not a decimal number`},
		{"csv huge", "w.csv", head + "1,1e17,5,1\n", `w.csv:2:3: column submit: 1e17 is 2^53 or more`},
		{"csv duplicate column", "w.csv", "id,submit,runtime,procs,submit\n1,0,5,1,3\n", `w.csv:1:25: column "submit" appears twice (first at column 4)`},
		{"csv unknown column", "w.csv", "id,submit,runtime,procs,colour\n", `w.csv:1:25: unknown column "colour"`},
		{"csv empty file", "w.csv", "", "w.csv:1: the file is empty"},
		{"csv short row", "w.csv", head + "1,0,5\n", "w.csv: record on line 2: wrong number of fields"},
		{"csv text int", "w.csv", head + "1,0,5,four\n", `w.csv:2:7: column procs: "four" is not an integer`},
		{"jsonl null runtime", "w.jsonl", `{"id":1,"submit":0,"runtime":null,"procs":1}` + "\n", "w.jsonl:1:20: field runtime: no value (write -1 for unknown)"},
		{"jsonl null submit", "w.jsonl", `{"id":1, "submit":null,"runtime":5,"procs":1}` + "\n", "w.jsonl:1:10: field submit: no value"},
		{"jsonl NaN text", "w.jsonl", `{"id":1,"submit":"NaN","runtime":5,"procs":1}` + "\n", `w.jsonl:1:9: field submit: want a number, got "NaN"`},
		{"jsonl bare NaN", "w.jsonl", `{"id":1,"submit":NaN,"runtime":5,"procs":1}` + "\n", `w.jsonl:1:9: field submit: invalid character 'N'`},
		{"jsonl huge", "w.jsonl", `{"id":1,"submit":0,"runtime":1e300,"procs":1}` + "\n", `w.jsonl:1:20: field runtime: 1e300 is 2^53 or more`},
		{"jsonl duplicate key", "w.jsonl", `{"id":1,"submit":0,"runtime":5,"procs":1,"submit":7}` + "\n", `w.jsonl:1:42: field "submit" appears twice (first at column 9)`},
		{"jsonl missing key", "w.jsonl", `{"id":1,"submit":0,"runtime":5}` + "\n", `w.jsonl:1:1: field "procs" is required`},
		{"jsonl second line", "w.jsonl", `{"id":1,"submit":0,"runtime":5,"procs":1}` + "\n" + `{"id":2,"submit":0,"runtime":5,"procs":1,"speed":2}` + "\n", `w.jsonl:2:42: unknown field "speed"`},
		{"jsonl not an object", "w.jsonl", "[1,2]\n", "w.jsonl:1:1: want a JSON object"},
		{"jsonl trailing", "w.jsonl", `{"id":1,"submit":0,"runtime":5,"procs":1} x` + "\n", "w.jsonl:1:43: text after the JSON object"},
		{"jsonl long line", "w.jsonl", long, "w.jsonl:1: the line is longer than 1048576 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Load(path, Rules{}, Transform{})
			if err == nil {
				t.Fatalf("accepted: %d jobs", len(w.Jobs))
			}
			got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			if !strings.Contains(got, c.want) || strings.Contains(got, "%!") {
				t.Fatalf("error %q, want %q", got, c.want)
			}
		})
	}
}

// TestLoadDirectory: a folder given as a workload says so.
func TestLoadDirectory(t *testing.T) {
	for _, name := range []string{"adir.swf", "adir.csv", "adir.jsonl"} {
		dir := filepath.Join(t.TempDir(), name)
		os.Mkdir(dir, 0o755)
		_, err := Load(dir, Rules{}, Transform{})
		if err == nil || !strings.Contains(err.Error(), name+": is a directory, not a workload file") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLoadUnknownRuntimeIsCounted: -1 is the unknown runtime in every
// format and is skipped by the counted no-runtime rule, as in SWF.
func TestLoadUnknownRuntimeIsCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.jsonl")
	os.WriteFile(path, []byte(`{"id":1,"submit":0,"runtime":-1,"procs":1}`+"\n"+`{"id":2,"submit":0,"runtime":3,"procs":1}`+"\n"), 0o644)
	w, err := Load(path, Rules{}, Transform{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || w.Skipped[SkipNoRuntime] != 1 {
		t.Fatalf("%d jobs, skipped %v", len(w.Jobs), w.Skipped)
	}
}
