package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWrite: a successful write replaces the file; a failing one leaves
// the old file and no temporary file behind, with an unnamed temporary
// file (Linux) and with a named one.
func TestWrite(t *testing.T) {
	for _, un := range []bool{true, false} {
		unnamed = un
		dir := t.TempDir()
		p := filepath.Join(dir, "out.csv")
		if err := WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		err := Write(p, 0o644, func(w io.Writer) error {
			w.Write([]byte("half"))
			return boom
		})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
			t.Fatalf("error %v, want boom naming the file", err)
		}
		if b, _ := os.ReadFile(p); string(b) != "old\n" {
			t.Errorf("after a failed write the file holds %q", b)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%d files left in the folder, want 1", len(ents))
		}
		if err := WriteFile(p, []byte("new\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new\n" {
			t.Errorf("file holds %q", b)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o755 {
			t.Errorf("mode %v", st.Mode())
		}
		// The hook sees the complete temporary file and the old file.
		var seen string
		err = WriteHook(p, 0o644, func(w io.Writer) error {
			_, err := io.WriteString(w, "newer\n")
			return err
		}, func(tmp, dst string) {
			a, _ := os.ReadFile(tmp)
			b, _ := os.ReadFile(dst)
			seen = string(a) + "|" + string(b)
		})
		if err != nil || seen != "newer\n|new\n" {
			t.Errorf("hook saw %q (%v)", seen, err)
		}
	}
	unnamed = true
}

// TestKilledWriteLeavesNothing (issue 18): a process killed (SIGKILL) in
// the middle of a streaming write leaves the old file whole and no
// temporary file (on Linux: the temporary file has no name until the
// write is complete). The writer is this test binary, started again.
func TestKilledWriteLeavesNothing(t *testing.T) {
	if p := os.Getenv("ATOMICFILE_KILL_ME"); p != "" {
		Write(p, 0o644, func(w io.Writer) error {
			for range 1000 {
				io.WriteString(w, "a line of a long export\n")
			}
			os.Stdout.WriteString("writing\n")
			time.Sleep(time.Hour) // killed here
			return nil
		})
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("unnamed temporary files are Linux's")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.csv")
	if err := WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriteLeavesNothing$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_KILL_ME="+p)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "writing\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the writer said %q", line)
	}
	// Half-way: the data are written, not yet synced or renamed.
	cmd.Process.Kill()
	cmd.Wait()
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Errorf("after the kill the file holds %.40q", b)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 {
		t.Errorf("files left after the kill: %v", names)
	}
}
