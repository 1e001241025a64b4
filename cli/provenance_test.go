package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/buildinfo"
	"github.com/gridsched/gridsched/internal/testenv"
)

// status runs a command line in-process through execute and returns its
// exit status and what it printed (stdout, stderr).
func status(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestResumeRefusesChangedInputs (issue 25): a store records the SHA-256
// of every file the experiment reads; resuming after a trace's or a
// platform file's content changed is refused with exit status 3, naming
// the file, both hashes and the ways forward, and nothing is run; with
// the files as they were, the resume goes on.
func TestResumeRefusesChangedInputs(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile(testenv.Trace(t, "SDSC-BLUE-2000-4.2-cln.first1250.swf"))
	if err != nil {
		t.Fatal(err)
	}
	trace := writeFile(t, filepath.Join(dir, "blue.swf"), string(orig))
	plat := writeFile(t, filepath.Join(dir, "plat.yaml"), "groups:\n  - count: 1152\n")
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: inputs\nworkload: {trace: blue.swf, first: 200}\nplatform: {file: plat.yaml}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")
	out := filepath.Join(dir, "out")
	if code, o, e := status("run", spec, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("first run: %d\n%s%s", code, o, e)
	}
	var prov experiment.Provenance
	b, _ := os.ReadFile(filepath.Join(out, experiment.ProvenanceFile))
	if err := json.Unmarshal(b, &prov); err != nil || len(prov.Inputs) != 2 || prov.Inputs[1].Role != "trace" || prov.Inputs[1].Name != "blue.swf" ||
		prov.Inputs[1].Size != int64(len(orig)) || len(prov.Code) != 1 || prov.Code[0].Identity != buildinfo.Identity() || prov.Code[0].Runs != 2 {
		t.Fatalf("provenance.json: %v\n%s", err, b)
	}
	if strings.Contains(string(b), dir) {
		t.Errorf("provenance.json holds a machine path:\n%s", b)
	}
	for _, c := range []struct {
		file, text, want string
	}{
		{trace, string(orig) + "; one more comment\n", "trace blue.swf"},
		{plat, "groups:\n  - count: 1153\n", "platform plat.yaml"},
	} {
		before := fileSum(t, filepath.Join(out, experiment.StoreFile))
		keep, _ := os.ReadFile(c.file)
		writeFile(t, c.file, c.text)
		code, o, e := status("run", spec, "--out", out, "--resume", "--quiet")
		for _, want := range []string{c.want, "its content changed", "SHA-256", "--out NEW", "restore the inputs as they were"} {
			if !strings.Contains(e, want) {
				t.Errorf("%s changed: stderr lacks %q:\n%s", c.want, want, e)
			}
		}
		if code != exitInput || strings.Contains(o, "runs done now") {
			t.Errorf("%s changed: exit %d, stdout %q", c.want, code, o)
		}
		if fileSum(t, filepath.Join(out, experiment.StoreFile)) != before {
			t.Errorf("%s changed: the refused resume changed the store", c.want)
		}
		writeFile(t, c.file, string(keep))
	}
	if code, o, e := status("run", spec, "--out", out, "--resume", "--quiet"); code != 0 || !strings.Contains(o, "0 runs done now, 2 already in") {
		t.Fatalf("resume with the inputs restored: %d\n%s%s", code, o, e)
	}
}

// TestResumeRefusesCodeChange (issue 25): a store records the code
// identity of every run; resuming with other code is refused (exit 3)
// naming both identities and the two ways forward; --allow-code-change
// continues, each run recording the code that made it, and provenance.json
// and the report count the runs of each identity.
func TestResumeRefusesCodeChange(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: code\nworkload: {model: lublin, params: {nodes: 16}, jobs: 30}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 2}\nmetrics: [mean_wait]\n")
	out := filepath.Join(dir, "out")
	if code, o, e := status("run", spec, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("first run: %d\n%s%s", code, o, e)
	}
	store := filepath.Join(out, experiment.StoreFile)
	// An interruption lost two runs.
	db, err := sql.Open("sqlite", "file:"+store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM runs WHERE replication = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	old := buildinfo.Identity()
	const other = "src:00000000000000ff"
	restore := buildinfo.SetForTest(other)
	defer restore()
	code, o, e := status("run", spec, "--out", out, "--resume", "--quiet")
	for _, want := range []string{"its 2 runs were made by other code (code identity " + old, "(code identity " + other + ")", "--out NEW", "--allow-code-change"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	if code != exitInput || strings.Contains(o, "runs done now") {
		t.Fatalf("exit %d, stdout %q", code, o)
	}
	code, o, e = status("run", spec, "--out", out, "--resume", "--allow-code-change", "--quiet")
	if code != 0 || !strings.Contains(o, "2 runs done now, 2 already in") {
		t.Fatalf("--allow-code-change: %d\n%s%s", code, o, e)
	}
	var prov experiment.Provenance
	b, _ := os.ReadFile(filepath.Join(out, experiment.ProvenanceFile))
	if err := json.Unmarshal(b, &prov); err != nil || len(prov.Code) != 2 || prov.Code[0] != (experiment.CodeRuns{Identity: old, Runs: 2}) || prov.Code[1] != (experiment.CodeRuns{Identity: other, Runs: 2}) {
		t.Fatalf("provenance.json: %v\n%s", err, b)
	}
	html, _ := os.ReadFile(filepath.Join(out, experiment.ReportFile))
	if !strings.Contains(string(html), "runs of several versions of the code") || !strings.Contains(string(html), other+" (2 runs)") {
		t.Error("the report does not say the runs come from two code identities")
	}
	// The code that made the store resumes without the flag; merging the
	// store with one of a single identity needs the flag too.
	restore()
	if code, o, e := status("run", spec, "--out", out, "--resume", "--quiet"); code != 0 {
		t.Fatalf("resume with the store's first code: %d\n%s%s", code, o, e)
	}
	if code, _, e := status("merge", "--out", filepath.Join(dir, "m"), store); code != exitInput || !strings.Contains(e, "different code") {
		t.Errorf("merge of a mixed store without the flag: %d %s", code, e)
	}
	if code, _, e := status("merge", "--allow-code-change", "--out", filepath.Join(dir, "m2"), store); code != 0 {
		t.Errorf("merge --allow-code-change: %d %s", code, e)
	}
}

// TestStoreRecognition (issue 25): a store.db that gridsched did not make
// is refused untouched by run, report and merge; a store without
// finished runs is replaced; a store whose sweep stopped on an error of
// its spec is moved aside by a plain rerun of the fixed spec; report and
// merge only read the stores they are given.
func TestStoreRecognition(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: rec\nworkload: {model: lublin, params: {nodes: 16}, jobs: 30}\nplatform: {nodes: 16}\npolicies: [fcfs]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")

	// Another application's SQLite file.
	foreign := filepath.Join(dir, "foreign", experiment.StoreFile)
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	db, err := sql.Open("sqlite", "file:"+foreign)
	if err != nil {
		t.Fatal(err)
	}
	db.Exec(`CREATE TABLE photos (id INTEGER, name TEXT); INSERT INTO photos VALUES (1, 'x')`)
	db.Close()
	sum := fileSum(t, foreign)
	for _, args := range [][]string{
		{"run", spec, "--out", filepath.Dir(foreign), "--resume", "--quiet"},
		{"run", spec, "--out", filepath.Dir(foreign), "--quiet"},
		{"report", filepath.Dir(foreign)},
		{"merge", "--out", filepath.Join(dir, "m"), foreign},
	} {
		code, _, e := status(args...)
		if code != exitInput || !strings.Contains(e, "not a gridsched result store") || !strings.Contains(e, "tables photos") {
			t.Errorf("%v: exit %d: %s", args[0], code, e)
		}
		if fileSum(t, foreign) != sum {
			t.Fatalf("%v changed the foreign file", args[0])
		}
	}
	for _, ext := range []string{"-wal", "-journal"} {
		if _, err := os.Stat(foreign + ext); err == nil {
			t.Errorf("%s%s was created", foreign, ext)
		}
	}

	// A store with no finished run (a start that failed) is replaced.
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	s, err := experiment.Load(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := experiment.OpenStore(filepath.Join(empty, experiment.StoreFile), s, false)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, o, e := status("run", spec, "--out", empty)
	if code != 0 || !strings.Contains(e, "held no finished run") || !strings.Contains(o, "1 runs done now") {
		t.Fatalf("empty store: %d\n%s%s", code, o, e)
	}

	// A sweep that stops on its spec (a VM cap too small for the gangs,
	// found by the run) marks its store; the plain rerun of the fixed
	// spec moves it aside and starts afresh.
	broken := writeFile(t, filepath.Join(dir, "cloud.yaml"), "name: cl\nworkload: {model: gang, params: {lambda: 2}, jobs: 40}\npolicies: [cloud-ljfs]\ncloud: {max_vms: 64}\ngrid:\n  cloud.max_vms: [64, 2]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")
	cout := filepath.Join(dir, "cloud")
	code, o, e = status("run", broken, "--out", cout, "--workers", "1")
	if code != exitInput || !strings.Contains(e, "max_vms: 2 cannot hold a job") || !strings.Contains(e, "run the same command again") {
		t.Fatalf("broken spec: %d\n%s%s", code, o, e)
	}
	writeFile(t, broken, strings.Replace(mustRead(t, broken), "[64, 2]", "[64, 96]", 1))
	code, o, e = status("run", broken, "--out", cout, "--workers", "1")
	if code != 0 || !strings.Contains(e, "stopped on an error") || !strings.Contains(o, "2 runs done now") {
		t.Fatalf("rerun of the fixed spec: %d\n%s%s", code, o, e)
	}
	if aside, _ := filepath.Glob(filepath.Join(cout, "store-stopped-1.db")); len(aside) != 1 {
		t.Error("the stopped store was not kept aside")
	}

	// report and merge do not write into the stores they read.
	good := filepath.Join(empty, experiment.StoreFile)
	sum = fileSum(t, good)
	if code, _, e := status("report", good, "--out", filepath.Join(dir, "rep")); code != 0 {
		t.Fatalf("report: %s", e)
	}
	if code, _, e := status("merge", "--out", filepath.Join(dir, "merged"), good); code != 0 {
		t.Fatalf("merge: %s", e)
	}
	if fileSum(t, good) != sum {
		t.Error("report or merge changed the store they read")
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReportOnReadOnlyMount (issue 25): report and merge read a store on
// a read-only mount (SQLite cannot make the write-ahead log's files
// there). Needs unshare and mount (Linux); skipped elsewhere.
func TestReportOnReadOnlyMount(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	if err := exec.Command("unshare", "--mount", "--map-root-user", "true").Run(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: ro\nworkload: {model: lublin, params: {nodes: 16}, jobs: 30}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")
	ro := filepath.Join(dir, "ro")
	if code, _, e := status("run", spec, "--out", ro, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	self, _ := os.Executable()
	store := filepath.Join(ro, experiment.StoreFile)
	script := `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && touch "$1/x" 2>/dev/null && { echo "not read-only"; exit 9; }; ` +
		`"$2" report "$3" --out "$4" && "$2" merge --out "$5" "$3"`
	cmd := exec.Command("unshare", "--mount", "--map-root-user", "sh", "-c", script, "sh", ro, self, store, filepath.Join(dir, "rep"), filepath.Join(dir, "merged"))
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("report and merge on a read-only mount: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged", experiment.StoreFile)); err != nil {
		t.Error("no merged store")
	}
}

// TestOldStoreStillReadable (issue 25): a store of format 1 (written
// before code identities and input hashes were recorded) is reported and
// merged (its runs' code identity unknown) but not resumed.
func TestOldStoreStillReadable(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: old\nworkload: {model: lublin, params: {nodes: 16}, jobs: 30}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")
	out := filepath.Join(dir, "out")
	if code, _, e := status("run", spec, "--out", out, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	// Turn it into a store of format 1: no marks, no code column.
	store := filepath.Join(out, experiment.StoreFile)
	db, err := sql.Open("sqlite", "file:"+store)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA application_id = 0`, `PRAGMA user_version = 0`, `ALTER TABLE runs DROP COLUMN code`,
		`DELETE FROM meta WHERE key IN ('code_identities', 'inputs', 'version')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	if code, _, e := status("report", out, "--out", filepath.Join(dir, "rep")); code != 0 {
		t.Fatalf("report: %s", e)
	}
	if code, _, e := status("merge", "--out", filepath.Join(dir, "m"), store); code != 0 {
		t.Fatalf("merge: %s", e)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "m", experiment.ProvenanceFile))
	if !strings.Contains(string(b), `"identity": "unknown (store format 1)"`) || !strings.Contains(string(b), `"runs": 2`) {
		t.Errorf("provenance of a format-1 store:\n%s", b)
	}
	if code, _, e := status("run", spec, "--out", out, "--resume", "--quiet"); code != exitInput || !strings.Contains(e, "written by an older gridsched (store format 1") {
		t.Errorf("resume of a format-1 store: %d %s", code, e)
	}
}
