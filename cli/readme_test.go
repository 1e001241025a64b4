package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/testenv"
)

// readmeCommand is one "$ go run ./cmd/gridsched …" line of a console
// block of the README (continuations joined) and the output printed
// under it.
type readmeCommand struct {
	line   int
	args   []string
	grep   *regexp.Regexp // "| grep -E PATTERN"
	head   string         // "$ head -2 FILE" (args empty)
	write  [2]string      // "$ printf 'TEXT' > FILE": FILE, TEXT
	output []string
	gap    bool // the block shows "..." for lines left out
}

// readmeCommands parses the README's console blocks.
func readmeCommands(t *testing.T, readme string) []readmeCommand {
	var out []readmeCommand
	lines := strings.Split(readme, "\n")
	in := false
	var cur *readmeCommand
	flush := func() {
		if cur != nil {
			for len(cur.output) > 0 && strings.TrimSpace(cur.output[len(cur.output)-1]) == "" {
				cur.output = cur.output[:len(cur.output)-1]
			}
			out = append(out, *cur)
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```console"):
			in = true
			continue
		case in && strings.HasPrefix(l, "```"):
			in = false
			flush()
			continue
		case !in:
			continue
		}
		if strings.HasPrefix(l, "$ ") {
			flush()
			cmd := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			if c := strings.Index(cmd, " # "); c >= 0 {
				cmd = cmd[:c]
			}
			rc := readmeCommand{line: i + 1}
			switch {
			case strings.HasPrefix(cmd, "go run ./cmd/gridsched "):
				cmd = strings.TrimPrefix(cmd, "go run ./cmd/gridsched ")
				if a, b, ok := strings.Cut(cmd, " | grep -E "); ok {
					re, err := regexp.Compile(strings.Trim(strings.TrimSpace(b), `"`))
					if err != nil {
						t.Fatalf("README line %d: %v", i+1, err)
					}
					cmd, rc.grep = a, re
				}
				rc.args = strings.Fields(cmd)
			case strings.HasPrefix(cmd, "printf '"):
				text, file, ok := strings.Cut(strings.TrimPrefix(cmd, "printf '"), "' > ")
				if !ok {
					t.Fatalf("README line %d: printf without a file", i+1)
				}
				rc.write = [2]string{strings.TrimSpace(file), strings.ReplaceAll(text, `\n`, "\n")}
			case strings.HasPrefix(cmd, "head -2 "):
				rc.head = strings.TrimSpace(strings.TrimPrefix(cmd, "head -2 "))
			default:
				continue // a comment, or a command of another program
			}
			cur = &rc
			continue
		}
		if cur != nil {
			if strings.TrimSpace(l) == "..." {
				cur.gap = true
				continue
			}
			cur.output = append(cur.output, l)
		}
	}
	return out
}

// runStdout runs the command in-process and returns its standard output.
func runStdout(args ...string) (string, error) {
	out, _, err := executeCmd(args...)
	return out, err
}

// executeCmd runs the command in-process: its standard output and error.
func executeCmd(args ...string) (string, string, error) {
	cmd := newRoot()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

func fields(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestReadmeExamples is the README checked against the program: every
// "go run ./cmd/gridsched" command of its console blocks that shows its
// output (and the head of the files they write) is run, in a scratch
// folder with the traces where the README says ../shared/traces, and its
// output must be the README's, line for line (columns aside; "..." lets
// lines out). The spec of "gridsched run my-sweep.yaml" is the README's
// own YAML block. reproduce is not run here (TestReadmeQuickCounts).
func TestReadmeExamples(t *testing.T) {
	traces := testenv.TracesDir(t)
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	absTraces, err := filepath.Abs(traces)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testenv.TracesEnv, absTraces)
	dir := t.TempDir()
	// The YAML block that defines my-sweep.
	m := regexp.MustCompile("(?s)```yaml\n(name: my-sweep\n.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README: no YAML block of my-sweep")
	}
	if err := os.WriteFile(filepath.Join(dir, "my-sweep.yaml"), m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	checked := 0
	for _, c := range readmeCommands(t, string(readme)) {
		if len(c.args) > 0 && c.args[0] == "reproduce" {
			continue
		}
		var got string
		if c.write[0] != "" {
			if err := os.WriteFile(c.write[0], []byte(c.write[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if c.head != "" {
			b, err := os.ReadFile(c.head)
			if err != nil {
				t.Errorf("README line %d: head -2 %s: %v", c.line, c.head, err)
				continue
			}
			got = strings.Join(strings.SplitN(string(b), "\n", 3)[:2], "\n")
		} else {
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "../shared/traces", absTraces)
			}
			out, err := runStdout(args...)
			if err != nil {
				t.Errorf("README line %d: gridsched %s: %v", c.line, strings.Join(c.args, " "), err)
				continue
			}
			got = strings.ReplaceAll(out, absTraces, "../shared/traces")
			if c.grep != nil {
				var kept []string
				for _, l := range strings.Split(got, "\n") {
					if c.grep.MatchString(l) {
						kept = append(kept, l)
					}
				}
				got = strings.Join(kept, "\n")
			}
		}
		if len(c.output) == 0 {
			continue
		}
		checked++
		var have []string
		for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
			have = append(have, fields(l))
		}
		k := 0
		for _, want := range c.output {
			w := fields(want)
			if !c.gap {
				if k >= len(have) || have[k] != w {
					t.Errorf("README line %d (gridsched %s): line %d is\n  %q\nthe program prints\n  %q", c.line, strings.Join(c.args, " ")+c.head, k+1, w, lineAt(have, k))
					break
				}
				k++
				continue
			}
			for k < len(have) && have[k] != w {
				k++
			}
			if k == len(have) {
				t.Errorf("README line %d (gridsched %s): the program does not print %q (it prints:\n%s)", c.line, strings.Join(c.args, " "), w, got)
				break
			}
			k++
		}
		if !c.gap && k < len(have) && k == len(c.output) {
			t.Errorf("README line %d (gridsched %s): the program prints more lines than the README shows, from %q", c.line, strings.Join(c.args, " ")+c.head, have[k])
		}
	}
	if checked < 5 {
		t.Errorf("only %d README examples checked", checked)
	}
}

func lineAt(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return "(nothing)"
}

// TestReadmeQuickCounts: the README's count of the quick experiments and
// their runs is what reproduce --quick runs.
func TestReadmeQuickCounts(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`The (\d+) quick experiments \(([\d,]+) runs\)`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README: no sentence 'The N quick experiments (M runs)'")
	}
	names := experiment.Builtin()
	line, err := reproducePlan(names, "quick")
	if err != nil {
		t.Fatal(err)
	}
	runs := regexp.MustCompile(`, (\d+) runs`).FindStringSubmatch(line)
	if runs == nil {
		t.Fatalf("plan %q", line)
	}
	n, _ := strconv.Atoi(runs[1])
	if string(m[1]) != strconv.Itoa(len(names)) || strings.ReplaceAll(string(m[2]), ",", "") != strconv.Itoa(n) {
		t.Errorf("README: %s quick experiments (%s runs); reproduce --quick runs %d experiments, %d runs", m[1], m[2], len(names), n)
	}
}
