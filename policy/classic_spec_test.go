package policy_test

import (
	"strings"
	"testing"

	"github.com/gridsched/gridsched/policy"
)

// TestParseSpecRefusals: a spec string the catalogue cannot run is
// refused with the column of the offending key or value and what it
// wants; numbers are finite and decimal, as the workload readers take
// them (hex and digit separators were accepted, and "Inf" was told to be
// a number >= 0); the input is quoted clipped, not repeated whole.
func TestParseSpecRefusals(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct{ spec, want string }{
		{"easy:factor=NaN", `policy "easy:factor=NaN", column 13: factor "NaN": want a finite decimal number`},
		{"easy:factor=Inf", `column 13: factor "Inf": want a finite decimal number`},
		{"easy:factor=1e400", `column 13: factor "1e400": want a finite decimal number`},
		{"easy:factor=0x1p-2", `column 13: factor "0x1p-2": want a finite decimal number`},
		{"maui:w_sld=1_0", `column 12: w_sld "1_0": want a finite decimal number`},
		{"easy:w_wait=-Inf", `column 13: w_wait "-Inf": want a finite decimal number`},
		{"easy:factor=-0", `column 13: factor "-0": want a number > 0`},
		{"easy:delay=-1", `column 12: delay "-1": want a number >= 0`},
		{"easy:threshold=1.5", `column 16: threshold "1.5": want a number in [0, 1]`},
		{"easy:depth=-1", `column 12: depth "-1": want 0, 1, a number of reservations, or all`},
		{"easy:depth=2147483647", `column 12: depth "2147483647": want 0, 1`},
		{"easy:window=-1", `column 13: window "-1": want a whole number >= 0`},
		{"easy:order=sjf,order=ljf", `column 16: key "order" given twice`},
		{"easy:ordre=sjf", `column 6: unknown key "ordre" (known: order, depth,`},
		{"easy:order=sjf,", `column 16: "" is not key=value`},
		{"easy:", `column 6: no key=value after ':'`},
		{":", `column 1: unknown base policy "" (classic or an alias: conservative,`},
		{"easy:order=ſjf", `column 12: order "ſjf": want one of fcfs, lcfs,`},
		{"easy:order=sjf:backfill=sjbf", `column 12: order "sjf:backfill=sjbf": want one of`},
		{"easy:common=maybe", `column 13: common "maybe": want yes or no`},
		{"conservative:order=sjf", `column 14: depth=all (conservative) reserves jobs as they arrive: order must be fcfs`},
		{"easy:score=procs", `column 6: score=procs sets what backfill=lookahead maximises: not with backfill=queue`},
		{"easy:order=sjf," + long, `policy "easy:order=sjf,xxxx`},
		{"easy:order=sjf," + long, `… (5015 bytes), column 16: "xxxx`},
		{"easy:order=" + long, `column 12: order "xxxx`},
	} {
		_, err := policy.ParseSpec(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 1000 {
			t.Errorf("%.40q: error %v, want one (under 1000 bytes) containing %s", tc.spec, err, tc.want)
		}
	}
}
