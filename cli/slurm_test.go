package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostileNames are names that would run commands, split into several
// arguments or turn into options if a script interpolated them.
var hostileNames = []string{
	"$(touch PWNED-dollar)", "`touch PWNED-backtick`", "a;touch PWNED-semicolon", `q'u"o'te`,
	"paper figs", "new\nline; touch PWNED-newline", "-leading", "$HOME ${PATH} \\ & | > <",
}

// stubScript writes an executable bash script that appends its working
// folder, GRIDSCHED_TRACES and its arguments (NUL-separated, so any byte
// but NUL arrives intact) to the file named by $STUB_LOG, then prints
// out.
func stubScript(t *testing.T, path, out string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/bash\n{ printf '%s\\0' \"$PWD\" \"${GRIDSCHED_TRACES-}\" \"$#\"; for a in \"$@\"; do printf '%s\\0' \"$a\"; done; } >> \"$STUB_LOG\"\n" + out
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// stubCalls reads the calls a stub logged: each its folder, traces
// folder and arguments.
func stubCalls(t *testing.T, log string) [][]string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	var calls [][]string
	for len(f) >= 3 {
		var n int
		fmt.Sscan(f[2], &n)
		calls = append(calls, append([]string{f[0], f[1]}, f[3:3+n]...))
		f = f[3+n:]
	}
	return calls
}

// TestSlurmScriptsResistInjection (issue 25): for each hostile name used
// at once as the spec's folder, file name, experiment name and label,
// the output folder, the binary's folder, the traces folder and the
// working folder, 'gridsched slurm --submit' writes the scripts and calls
// sbatch (a stub on PATH) with every path intact; the scripts, executed
// by bash with a stub gridsched, run nothing but the stub and hand it
// every argument intact (the array task: run --label L --out OUT --shard
// env … -- SPEC in the working folder with GRIDSCHED_TRACES; the merge:
// merge --out OUT/merged -- each shard store); no PWNED file appears.
func TestSlurmScriptsResistInjection(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	root := t.TempDir()
	for i, h := range hostileNames {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			base := filepath.Join(root, fmt.Sprint(i))
			specDir := filepath.Join(base, "spec "+h)
			spec := filepath.Join(specDir, h+".yaml")
			name, _ := json.Marshal(h)
			doc := fmt.Sprintf("name: %s\nworkload: {model: lublin, params: {nodes: 16}, jobs: 10}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\nlabels:\n  %s: {replications: {count: 2}}\n", name, name)
			os.MkdirAll(specDir, 0o755)
			if err := os.WriteFile(spec, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(base, "out "+h)
			stub := filepath.Join(base, "bin "+h, "gridsched "+h)
			stubScript(t, stub, "")
			sbatchDir := filepath.Join(base, "sbatch-bin")
			stubScript(t, filepath.Join(sbatchDir, "sbatch"), "echo 4242\n")
			traces := filepath.Join(base, "traces "+h)
			os.MkdirAll(traces, 0o755)
			work := filepath.Join(base, "work "+h)
			os.MkdirAll(work, 0o755)
			log := filepath.Join(base, "stub.log")
			t.Setenv("STUB_LOG", log)
			t.Setenv("PATH", sbatchDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			t.Setenv("GRIDSCHED_TRACES", traces)
			t.Chdir(work)

			if got, err := run("slurm", spec, "--shards", "4", "--label", h, "--out", out, "--binary", stub, "--cpus", "2", "--submit"); err != nil {
				t.Fatalf("slurm: %v\n%s", err, got)
			}
			sb, merge := filepath.Join(out, "sbatch.sh"), filepath.Join(out, "merge.sh")
			calls := stubCalls(t, log)
			if len(calls) != 2 {
				t.Fatalf("sbatch calls: %q", calls)
			}
			wantSB := []string{"--parsable", "--output=" + filepath.Join(out, "slurm-%A_%a.log"), sb}
			wantMerge := []string{"--parsable", "--dependency=afterok:4242", "--output=" + filepath.Join(out, "slurm-merge-%j.log"), merge}
			if !slices.Equal(calls[0][2:], wantSB) || !slices.Equal(calls[1][2:], wantMerge) {
				t.Errorf("sbatch arguments:\n got %q\n     %q\nwant %q\n     %q", calls[0][2:], calls[1][2:], wantSB, wantMerge)
			}
			os.Remove(log)

			// The array task (task 3 of 0..3) and the merge, run by bash
			// from another folder.
			for k := 1; k <= 4; k++ {
				os.WriteFile(filepath.Join(out, fmt.Sprintf("store-%d-of-4.db", k)), nil, 0o644)
			}
			for _, script := range []string{sb, merge} {
				c := exec.Command(bash, script)
				c.Dir = base
				c.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=0")
				if b, err := c.CombinedOutput(); err != nil {
					t.Fatalf("bash %s: %v\n%s", script, err, b)
				}
			}
			calls = stubCalls(t, log)
			wantRun := []string{work, traces, "run", "--label", h, "--out", out, "--shard", "env", "--resume", "--quiet", "--workers", "2", "--", spec}
			wantM := []string{work, traces, "merge", "--out", filepath.Join(out, "merged"), "--"}
			for _, k := range []int{1, 2, 3, 4} {
				wantM = append(wantM, filepath.Join(out, fmt.Sprintf("store-%d-of-4.db", k)))
			}
			if len(calls) != 2 || !slices.Equal(calls[0], wantRun) || !slices.Equal(calls[1], wantM) {
				t.Fatalf("the scripts called:\n%q\nwant\n%q\n%q", calls, wantRun, wantM)
			}
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), "PWNED") {
					t.Errorf("a command ran: %s exists", p)
				}
				return nil
			})
			for _, s := range []string{sb, merge} {
				b, _ := os.ReadFile(s)
				for _, line := range bytes.Split(b, []byte("\n")) {
					if bytes.HasPrefix(line, []byte("#")) && (bytes.ContainsAny(line, "$`") || h != safeName(h) && bytes.Contains(line, []byte(h))) {
						t.Errorf("%s: a comment or directive holds a user's text: %s", filepath.Base(s), line)
					}
				}
			}
		})
	}
	// A merge with a shard store missing fails instead of merging part.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("name: m\nworkload: {model: lublin, params: {nodes: 16}, jobs: 10}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"), 0o644)
	stub := filepath.Join(dir, "gs")
	stubScript(t, stub, "")
	t.Setenv("STUB_LOG", filepath.Join(dir, "log"))
	if _, err := run("slurm", filepath.Join(dir, "s.yaml"), "--shards", "2", "--out", filepath.Join(dir, "o"), "--binary", stub); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "o", "store-1-of-2.db"), nil, 0o644)
	b, err := exec.Command(bash, filepath.Join(dir, "o", "merge.sh")).CombinedOutput()
	if err == nil || !strings.Contains(string(b), "want 2 shard stores") {
		t.Errorf("merge with a missing shard: %v\n%s", err, b)
	}
	// Refused: more shards than runs, no shards, no CPUs, an sbatch
	// option with a newline.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "3"}, "--shards 3: the sweep has 2 runs"},
		{[]string{"--shards", "1000000000"}, "--shards 1000000000: want 1 to 100000"},
		{[]string{"--shards", "0"}, "--shards 0: want 1 to 100000"},
		{[]string{"--shards", "1", "--cpus", "0"}, "--cpus 0: want 1 to 4096"},
		{[]string{"--shards", "1", "--sbatch", "--partition=x\ntouch PWNED"}, "want one sbatch option"},
	} {
		_, err := run(append([]string{"slurm", filepath.Join(dir, "s.yaml"), "--binary", stub, "--out", filepath.Join(dir, "o2")}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || exitStatus(err) != exitUsage {
			t.Errorf("%v: %v (status %d), want %q", c.args, err, exitStatus(err), c.want)
		}
	}
}
