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

func TestOutputsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("whole traces")
	}
	print := os.Getenv("GRIDSCHED_PRINT_GOLDEN") != ""
	// The workload's name (its path) is in jobs.csv and summary.json: run
	// from the traces folder so that it is the bare file name everywhere.
	t.Chdir(testenv.TracesDir(t))
	for _, tr := range []string{"SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		for _, pol := range []string{"fcfs", "easy", "conservative"} {
			r, err := Run(Config{WorkloadPath: tr, Policy: pol, Series: true, Transform: workload.Transform{First: 15000}})
			if err != nil {
				t.Fatal(err)
			}
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
				key := fmt.Sprintf("%s/%s/%s", tr[:9], pol, f)
				got := hex.EncodeToString(sum[:])
				if print {
					fmt.Printf("\t%q: %q,\n", key, got)
					continue
				}
				if want := goldenOutputs[key]; got != want {
					t.Errorf("%s: sha256 %s, want %s (the output changed)", key, got, want)
				}
			}
		}
	}
}
