package cli

import (
	"database/sql"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridsched/gridsched/experiment"
)

const killSpec = `name: kill-test
workload:
  model: lublin
  params: {nodes: 64}
  jobs: 10000
platform: {nodes: 64}
policies: [fcfs, easy, conservative]
grid:
  workload.params.arrival_scale: [0.8, 1.2]
replications: {count: 16}
seed: 9
metrics: [mean_wait, utilization]
`

// TestKillAndResume: a sweep killed with SIGKILL at random moments and
// resumed each time ends with the same store as an uninterrupted run: the
// same rows, no duplicates (issue 4).
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sweeps")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte(killSpec), 0o644)

	ref := filepath.Join(dir, "ref")
	if out, err := cli(t, "run", spec, "--out", ref, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	killed := filepath.Join(dir, "killed")
	store := filepath.Join(killed, experiment.StoreFile)
	r := rand.New(rand.NewPCG(1, 2))
	kills, exportKills := 0, 0
	// Each attempt is killed once it has committed a random 1 to 8 more
	// runs (observed progress, not wall time: a loaded machine only makes
	// it slower), and once right after the last run, while it exports.
	// Every attempt makes progress, so the sweep ends.
	for attempt := 0; attempt < 200; attempt++ {
		args := []string{"run", spec, "--out", killed, "--quiet"}
		if attempt > 0 {
			args = append(args, "--resume")
		}
		before := countRuns(store)
		target := min(before+1+r.IntN(8), 96)
		cmd := cli(t, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		tick := time.NewTicker(10 * time.Millisecond)
	wait:
		for {
			select {
			case err := <-done:
				tick.Stop()
				if err != nil {
					t.Fatalf("attempt %d failed: %v", attempt, err)
				}
				if kills < 3 {
					t.Fatalf("the sweep finished after %d kills; make it longer", kills)
				}
				t.Logf("finished after %d kills (%d while exporting)", kills, exportKills)
				compareStores(t, filepath.Join(ref, experiment.StoreFile), store)
				for _, f := range []string{experiment.RunsFile, experiment.AggregateFile} {
					a, _ := os.ReadFile(filepath.Join(ref, f))
					b, _ := os.ReadFile(filepath.Join(killed, f))
					if string(a) != string(b) || len(a) == 0 {
						t.Errorf("%s differs from the uninterrupted run", f)
					}
				}
				return
			case <-tick.C:
				n := countRuns(store)
				if n >= target && (n < 96 || exportKills == 0) {
					cmd.Process.Signal(syscall.SIGKILL)
					<-done
					tick.Stop()
					kills++
					if n == 96 {
						exportKills++
						// Killed while exporting: an export is absent or
						// whole, never a part.
						for _, f := range []string{experiment.RunsFile, experiment.AggregateFile} {
							b, err := os.ReadFile(filepath.Join(killed, f))
							if err == nil && (len(b) == 0 || b[len(b)-1] != '\n') {
								t.Errorf("%s is cut after a kill: %d bytes", f, len(b))
							}
						}
					}
					break wait
				}
			}
		}
	}
	t.Fatal("the sweep never finished")
}

// countRuns counts the committed runs of a store another process writes
// (0 while it does not exist), through a read-only connection.
func countRuns(path string) int {
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0
	}
	defer db.Close()
	n := 0
	db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n)
	return n
}

func compareStores(t *testing.T, a, b string) {
	t.Helper()
	var rows [2][]experiment.Row
	for i, p := range []string{a, b} {
		st, err := experiment.OpenExisting(p)
		if err != nil {
			t.Fatal(err)
		}
		rows[i], err = st.Rows()
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(rows[0]) != len(rows[1]) || len(rows[0]) != 96 {
		t.Fatalf("rows: %d uninterrupted, %d killed (want 96)", len(rows[0]), len(rows[1]))
	}
	seen := map[string]bool{}
	for i := range rows[0] {
		x, y := rows[0][i], rows[1][i]
		if seen[y.Key] {
			t.Fatalf("duplicate run %s", y.Key)
		}
		seen[y.Key] = true
		if x.Key != y.Key || x.Seed != y.Seed || strings.Join(mapString(x.Metrics), ",") != strings.Join(mapString(y.Metrics), ",") {
			t.Fatalf("row %d differs: %+v vs %+v", i, x, y)
		}
	}
}

func mapString(m map[string]float64) []string {
	var out []string
	for _, k := range experiment.MetricNames() {
		if v, ok := m[k]; ok {
			out = append(out, k+"="+experiment.FormatValue(v))
		}
	}
	return out
}
