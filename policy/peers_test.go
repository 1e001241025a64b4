package policy_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sim "github.com/gridsched/gridsched/simulate"
)

// referenceDir is the folder of reference facts shared outside the
// repository: $GRIDSCHED_REFERENCE, else ../shared/reference relative to
// the module root (like the traces).
func referenceDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("GRIDSCHED_REFERENCE")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "reference")
	}
	if st, err := os.Stat(filepath.Join(dir, "peers")); err != nil || !st.IsDir() {
		t.Fatalf("reference folder %s has no peers/ (set GRIDSCHED_REFERENCE): %v", dir, err)
	}
	return dir
}

// peerSchedule reads one of pyss's schedules: job id → start.
func peerSchedule(t testing.TB, path string) map[int64]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[int64]float64{}
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			t.Fatalf("%s:%d: want 5 fields, got %d", path, line, len(fs))
		}
		id, err1 := strconv.ParseInt(fs[0], 10, 64)
		st, err2 := strconv.ParseFloat(fs[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: bad id or start", path, line)
		}
		out[id] = st
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// peerMatch runs policy on the peers' input and counts the jobs whose
// start equals pyss's.
func peerMatch(t testing.TB, policy, variant string) (match, total int, diffs []string) {
	t.Helper()
	dir := filepath.Join(referenceDir(t), "peers")
	want := peerSchedule(t, filepath.Join(dir, "pyss_sdsc5k-kill_"+variant+".txt.gz"))
	res, err := sim.Run(sim.Config{WorkloadPath: filepath.Join(dir, "sdsc5k-kill.swf.gz"), Nodes: 128, Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Engine.Jobs() {
		total++
		w, ok := want[j.ID]
		if ok && w == j.Start {
			match++
		} else if len(diffs) < 10 {
			diffs = append(diffs, fmt.Sprintf("job %d: start %v, pyss %v", j.ID, j.Start, w))
		}
	}
	if total != len(want) {
		t.Errorf("%s: %d jobs simulated, pyss has %d", variant, total, len(want))
	}
	return match, total, diffs
}

func TestPeersProbe(t *testing.T) {
	for _, c := range [][2]string{{"fcfs", "fcfs"}, {"easy", "easy"}, {"conservative", "cons"}, 
		
		{"easy-perfect", "perfect-easy"}, {"conservative-double", "double-cons"}, {"easy-double", "double-easy"},
		{"easy-perfect-double", "double-perfect-easy"}, {"easy-head-double", "head-double-easy"}, {"easy-tail-double", "tail-double-easy"},
		{"easy-sjbf", "easy-sjbf"}, {"easy-reverse", "reverse-easy"}, {"easy-shrinking", "shrinking-easy"},
		{"easy-plus-plus", "easy-plus-plus"}, {"easy-plus-plus-common", "common-dist-easy-plus-plus"}, {"easy-alpha", "alpha-easy"},
		{"maui", "maui"}, {"easy-greedy", "greedy-easy-firstmax"}, {"easy-lookahead", "lookahead-easy"},
		{"easy-probabilistic", "orig-probabilistic-easy"}, {"easy-probabilistic-common", "orig-common-dist-probabilistic-easy"},
	} {
		m, n, d := peerMatch(t, c[0], c[1])
		m2, _, d2 := peerMatch(t, c[0]+map[bool]string{true: ",", false: ":"}[strings.Contains(c[0], ":")]+"consult=pyss", c[1])
		t.Logf("%-28s vs %-38s: %4d/%d pyss-order %4d  %v %v", c[0], c[1], m, n, m2, first(d), first(d2))
	}
}

func first(d []string) []string {
	if len(d) > 3 {
		return d[:3]
	}
	return d
}
