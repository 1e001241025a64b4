package simulate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/workload"
)

// goldenOutputs are the SHA-256 sums of the files WriteDir wrote before
// the loading, summary and output writers were rewritten for speed (issue
// 19, computed with the code of commit 578b2a0): every later version must
// write the same bytes. Two traces (SDSC-SP2: 128 single-processor nodes;
// CEA-Curie: 93,312 nodes, wide jobs with several node ranges, so quoted
// allocations in jobs.csv), their first 15,000 records, three policies.
var goldenOutputs = map[string]string{
	"SDSC-SP2-/fcfs/jobs.csv":             "cd528b7051bd0c2439efa61a2d405409d3c4525782f3ad38fe29c9dfccdede0a",
	"SDSC-SP2-/fcfs/summary.json":         "143aae4ddca8d6b1ac0bb87c88c2b6cfc4b2b461049e4a2a2072879e66d21edd",
	"SDSC-SP2-/fcfs/schedule.swf":         "b363aef2592357ad254addb70ec09a2994a5fab17974025d7b8e5527750453bc",
	"SDSC-SP2-/fcfs/series.csv":           "8423719199e455c0d86391d22bc7f323d7394e050a1317d9fb5d70f72348af83",
	"SDSC-SP2-/easy/jobs.csv":             "44d9dc5552ce6c5afce5684d782d1bc9336f30b4944c80668145ff1042a34826",
	"SDSC-SP2-/easy/summary.json":         "efe6497dccfb6cd7c21504b1d85568cf6c748c1ce1c1c957fc730708854ff9c6",
	"SDSC-SP2-/easy/schedule.swf":         "42372d8bcc39f5b0130685c6941e855498d6eacf60cab14cbd4d543805226aaa",
	"SDSC-SP2-/easy/series.csv":           "e45f3f8ab4bd4728541bc82a104f7952aa479d9694e036f8dcacec90266ad1bf",
	"SDSC-SP2-/conservative/jobs.csv":     "1104ac7b27f5c44017893a664eb68b8d5a2938e27f65794744b537efbf3fd600",
	"SDSC-SP2-/conservative/summary.json": "d61dac38721971d3c578d710762f3f58a3a736385fa744f37bd1b12c4125ce32",
	"SDSC-SP2-/conservative/schedule.swf": "0d99ebf0fb83a8d13d5d277db32d9ef3cf1b82bf7127c97d74acafd4ce235f74",
	"SDSC-SP2-/conservative/series.csv":   "0da1763a462c54ef38db5e37f016c8c20ad17cfd0a632ca356630e7f01d712d3",
	"CEA-Curie/fcfs/jobs.csv":             "8698a214b8a17b3c926e80301fd62f5d8efbedd25f9dc91e8cacceeb3ec47494",
	"CEA-Curie/fcfs/summary.json":         "1880137eeea95782f6536063889634895209006dc728c6cb4011249f5bd32b9f",
	"CEA-Curie/fcfs/schedule.swf":         "b956495206a1a0fa11d7a436992afb7b50b86a9c30199fe805ecb349e831ed4e",
	"CEA-Curie/fcfs/series.csv":           "f38b0883fdf255370e3de006d8f7604c7d43ae9e738a0c9c9e4dda04b54e95ab",
	"CEA-Curie/easy/jobs.csv":             "680eee0e5d58fe01a2079c7725d0d0298009107c7d00f49faa4c8bcd7d4cc44c",
	"CEA-Curie/easy/summary.json":         "6cec29f0938f4866bbd569a17b6ff98969221dd1129a09406860048468a73af9",
	"CEA-Curie/easy/schedule.swf":         "8e9c9dba544e11ae5d00d0e301e43c9a241b199cc544a58e3cf64ca1f1670b5c",
	"CEA-Curie/easy/series.csv":           "1f48881674039a8b4aba69ace55404c57ef16b6668c0d3725b2b0ed5efd1e5d1",
	"CEA-Curie/conservative/jobs.csv":     "6e766593b380abe2c4c660604c04f3172b491064129322261333bd0cc1951a5d",
	"CEA-Curie/conservative/summary.json": "0572f532d4c971b37479fdc2e023d7a8dbd7ada0d3061d0ec460ba2f8aaeac0e",
	"CEA-Curie/conservative/schedule.swf": "a35b8fc35fc4c3119e96693d20074250d110c1e56009d26bdccd16f71806a6f9",
	"CEA-Curie/conservative/series.csv":   "1c1b49cd47a711d70bcb530fc77e35c2927280701ac0e94f94bc0f3eb6e8e37e",
}

// goldenOverloaded are the SHA-256 sums of what conservative backfilling
// writes on overloaded workloads, computed with the code before issue 30's
// bounds on the earliest fit, its search that jumps over the holes inside
// a window and its compression that stops at the end of the rises (commit
// bde91c1): CEA-Curie's first 30,000 records at twice their load with
// requested and with exact estimates (early ends of zero-length jobs still
// compress), and 30,000 built-in jobs at offered load 1.03 with exact
// estimates (nothing compresses; every placement reads the bounds).
var goldenOverloaded = map[string]string{
	"cea-x2-requested/jobs.csv":     "343a0a4f69989aa96958a96e68f188b4eafbdb2379da27306a190ae6142e45a3",
	"cea-x2-requested/summary.json": "7f444f057496b734982528d4cd8bb83493ef37e47a6e30a6bcf7202e0b3be5fa",
	"cea-x2-requested/schedule.swf": "6002a8a42fb62cacaa6d9a885342840732d35cda166caaad061d1958ce37e2a6",
	"cea-x2-requested/series.csv":   "7260b9f274d4fa8651d603f7dd53a4398c8764e7b81f88f71c9e1b6eb5e5b6f9",
	"cea-x2-exact/jobs.csv":         "bbe875b7f454fcbd7e89d2c5d7915fabb727e302106b346bcb4e7c16eafe5c37",
	"cea-x2-exact/summary.json":     "9b4ddc62b525b680443b0a3d39d24aada7c4eb69753a69600784c4cfc9ff5559",
	"cea-x2-exact/schedule.swf":     "a2e52bbb43c56948929918e68505f9fa5ec7caea9435dc21bcf049908d7a3588",
	"cea-x2-exact/series.csv":       "2291c5ffbbda093cece13bfc022cbea8bc43cc233c9f5a11a7714305d5be5b9b",
	"builtin-exact/jobs.csv":        "f2b4c95b8dd49d986493cacec75940aafaf2da876221ddf6af74b6d1483b5abc",
	"builtin-exact/summary.json":    "bfa3ad5199704df5075ece9a364248bce75c9f34b2d2ec686426ab86f75514ca",
	"builtin-exact/schedule.swf":    "9b5be619748a3b2c08d6d53f31740786860189dca66543adf2d8480983bf1a94",
	"builtin-exact/series.csv":      "d005c7de9e7316314bad450b7e7db8919ba4dbe875a456dd0c4f670ae04a822c",
}

// TestOutputsByteIdentical: the files simulate writes are those of the
// golden sums, byte for byte: three policies on two traces
// (goldenOutputs), and conservative backfilling on overloaded workloads
// (goldenOverloaded).
func TestOutputsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("whole traces")
	}
	// The workload's name (its path) is in jobs.csv and summary.json: run
	// from the traces folder so that it is the bare file name everywhere.
	t.Chdir(testenv.TracesDir(t))
	type golden struct {
		prefix string
		cfg    Config
		sums   map[string]string
	}
	var cases []golden
	for _, tr := range []string{"SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		for _, pol := range []string{"fcfs", "easy", "conservative"} {
			cases = append(cases, golden{fmt.Sprintf("%s/%s/", tr[:9], pol), Config{WorkloadPath: tr, Policy: pol, Transform: workload.Transform{First: 15000}}, goldenOutputs})
		}
	}
	cea := "CEA-Curie-2011-2.1-cln.swf.gz"
	cases = append(cases,
		golden{"cea-x2-requested/", Config{WorkloadPath: cea, Transform: workload.Transform{First: 30000, Scale: 0.5}}, goldenOverloaded},
		golden{"cea-x2-exact/", Config{WorkloadPath: cea, Transform: workload.Transform{First: 30000, Scale: 0.5, Estimates: "exact"}}, goldenOverloaded},
		golden{"builtin-exact/", Config{BuiltinJobs: 30000, BuiltinLoad: 1.03, Nodes: 1024, Transform: workload.Transform{Estimates: "exact"}}, goldenOverloaded})
	for _, c := range cases {
		if c.cfg.Policy == "" {
			c.cfg.Policy = "conservative"
		}
		c.cfg.Series = true
		r, err := Run(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, r, c.prefix, c.sums)
	}
}

// checkGolden writes r's files and compares each one's SHA-256 with
// golden[prefix+file]; with GRIDSCHED_PRINT_GOLDEN set it prints the sums
// instead (to take new golden values, from the code to compare with).
func checkGolden(t *testing.T, r *Result, prefix string, golden map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if err := r.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JobsFile, SummaryFile, ScheduleFile, SeriesFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		key, got := prefix+f, hex.EncodeToString(sum[:])
		if os.Getenv("GRIDSCHED_PRINT_GOLDEN") != "" {
			fmt.Printf("\t%q: %q,\n", key, got)
			continue
		}
		if want := golden[key]; got != want {
			t.Errorf("%s: sha256 %s, want %s (the output changed)", key, got, want)
		}
	}
}
