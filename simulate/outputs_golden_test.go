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
	"SDSC-SP2-/fcfs/jobs.csv":             "a6bd3310f9f4224a3aa4ab0690c59de16798580f0ffbe5309720b19892ca2c12",
	"SDSC-SP2-/fcfs/summary.json":         "055fe91e4efe2a02d8c94fac0a549ee7ae3d50432aef2c0880821864b7c84f6e",
	"SDSC-SP2-/fcfs/schedule.swf":         "b363aef2592357ad254addb70ec09a2994a5fab17974025d7b8e5527750453bc",
	"SDSC-SP2-/fcfs/series.csv":           "8423719199e455c0d86391d22bc7f323d7394e050a1317d9fb5d70f72348af83",
	"SDSC-SP2-/easy/jobs.csv":             "e715eca40c531fedcfc56c0a080ea854ef1849cbd946be49f6932caf3b96cba9",
	"SDSC-SP2-/easy/summary.json":         "760dc285664b3ec51bd61a4ac5f8064b14b732362766d901cfc7b40ad5233eb4",
	"SDSC-SP2-/easy/schedule.swf":         "42372d8bcc39f5b0130685c6941e855498d6eacf60cab14cbd4d543805226aaa",
	"SDSC-SP2-/easy/series.csv":           "e45f3f8ab4bd4728541bc82a104f7952aa479d9694e036f8dcacec90266ad1bf",
	"SDSC-SP2-/conservative/jobs.csv":     "ff7150fcc03e9a9fd009181667c4c5a3ee595bdf1259805f6044641497c4b190",
	"SDSC-SP2-/conservative/summary.json": "a596c83d8c952d1cd324809ebef97849df8e36d637ee89ceb61c4396bc9cf193",
	"SDSC-SP2-/conservative/schedule.swf": "0d99ebf0fb83a8d13d5d277db32d9ef3cf1b82bf7127c97d74acafd4ce235f74",
	"SDSC-SP2-/conservative/series.csv":   "0da1763a462c54ef38db5e37f016c8c20ad17cfd0a632ca356630e7f01d712d3",
	"CEA-Curie/fcfs/jobs.csv":             "7272d4754422a9e060c7f69f1bc94849c115add642a750d2d4f07e64edb2fc51",
	"CEA-Curie/fcfs/summary.json":         "ff90d5821b4eed03932d4d130f31e4232ce08f2e6cd8e78c9f88d5d7de308b61",
	"CEA-Curie/fcfs/schedule.swf":         "b956495206a1a0fa11d7a436992afb7b50b86a9c30199fe805ecb349e831ed4e",
	"CEA-Curie/fcfs/series.csv":           "f38b0883fdf255370e3de006d8f7604c7d43ae9e738a0c9c9e4dda04b54e95ab",
	"CEA-Curie/easy/jobs.csv":             "8c113ca484f9ba8f494bb1256cdb14d854ad4b997d56c5df0e3c3e49a4743ea9",
	"CEA-Curie/easy/summary.json":         "35fb1bafaeba5dd94b30756c967808a1c81ea56c3672f7d92c2465fd80739840",
	"CEA-Curie/easy/schedule.swf":         "8e9c9dba544e11ae5d00d0e301e43c9a241b199cc544a58e3cf64ca1f1670b5c",
	"CEA-Curie/easy/series.csv":           "1f48881674039a8b4aba69ace55404c57ef16b6668c0d3725b2b0ed5efd1e5d1",
	"CEA-Curie/conservative/jobs.csv":     "b679bafdde5db1e6a9bbbde70c6aad5ddfab720c04a54c5ddf9f65b49fcdb0ef",
	"CEA-Curie/conservative/summary.json": "c2beb1382af36d14488cb142aab3cc560d28e1d549ff29999127dad1c2b28d0d",
	"CEA-Curie/conservative/schedule.swf": "a35b8fc35fc4c3119e96693d20074250d110c1e56009d26bdccd16f71806a6f9",
	"CEA-Curie/conservative/series.csv":   "1c1b49cd47a711d70bcb530fc77e35c2927280701ac0e94f94bc0f3eb6e8e37e",
}

func TestOutputsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("whole traces")
	}
	print := os.Getenv("GRIDSCHED_PRINT_GOLDEN") != ""
	for _, tr := range []string{"SDSC-SP2-1998-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		for _, pol := range []string{"fcfs", "easy", "conservative"} {
			r, err := Run(Config{WorkloadPath: testenv.Trace(t, tr), Policy: pol, Series: true, Transform: workload.Transform{First: 15000}})
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
