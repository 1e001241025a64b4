package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGenerateKilledLeavesNothing (issue 18): `workload generate` streams
// into a temporary file through internal/atomicfile; killed (SIGKILL)
// half-way through a long workload it leaves neither a part of the
// workload nor a temporary file, and an older file of that name whole.
// The kill comes once the writer's open file in the output folder holds
// data (observed through /proc, not on wall time).
func TestGenerateKilledLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc to watch the writer through")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "big.swf")
	os.WriteFile(out, []byte("; old\n"), 0o644)
	cmd := cli(t, "workload", "generate", "--model", "lublin", "--jobs", "10000000", "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	fds := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/fd"
	writing := false
	for !writing {
		select {
		case err := <-done:
			t.Fatalf("generate ended before it was killed (%v)", err)
		case <-time.After(5 * time.Millisecond):
		}
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			p := filepath.Join(fds, e.Name())
			if target, _ := os.Readlink(p); strings.HasPrefix(target, dir+"/") {
				if st, err := os.Stat(p); err == nil && st.Size() > 0 {
					writing = true
				}
			}
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	if b, _ := os.ReadFile(out); string(b) != "; old\n" {
		t.Errorf("after the kill %s holds %.60q", out, b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("files left after the kill: %v", names)
	}
	// Not killed, it writes the whole workload in place of the old file.
	small := cli(t, "workload", "generate", "--model", "lublin", "--jobs", "50", "--out", out)
	if b, err := small.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") < 50 || strings.Contains(string(b), "; old") {
		t.Errorf("the finished workload: %.60q", b)
	}
}
