package policy

import (
	"sort"
	"strings"

	"github.com/gridsched/gridsched/engine"
)

// alias is a registered name for a point of the classic catalogue.
type alias struct {
	name, desc string
	// peer names the reference implementation whose schedules the alias
	// reproduces ("" if none ships it), source the paper.
	peer, source string
	spec         Spec
}

var aliases = map[string]alias{}

// RegisterAlias names spec (a spec string: BASE:key=value,...) as a
// policy. It panics on a duplicate or a bad spec: a programming error,
// found by any test.
func RegisterAlias(name, specStr, desc, source, peer string) {
	if _, dup := aliases[name]; dup {
		panic("policy: duplicate alias " + name)
	}
	s, err := ParseSpec(specStr)
	if err != nil {
		panic("policy: alias " + name + ": " + err.Error())
	}
	aliases[name] = alias{name: name, desc: desc, source: source, peer: peer, spec: s}
}

// AliasNames lists the catalogue's aliases in alphabetical order.
func AliasNames() []string {
	var ns []string
	for n := range aliases {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Expansion returns an alias's point in the four axes as a spec string.
func Expansion(name string) (string, bool) {
	a, ok := aliases[name]
	if !ok {
		return "", false
	}
	return a.spec.String(), true
}

// AliasInfo returns an alias's paper and the peer whose schedules it
// reproduces.
func AliasInfo(name string) (source, peer string, ok bool) {
	a, ok := aliases[name]
	return a.source, a.peer, ok
}

// fast are the aliases whose point has a dedicated implementation
// (indexed queue, skip-ahead compression) that makes the same decisions.
var fast = map[string]func(sel NodeSelector) engine.Policy{
	"fcfs":         func(sel NodeSelector) engine.Policy { return NewFCFS(sel) },
	"easy":         func(sel NodeSelector) engine.Policy { return NewEASY(sel) },
	"conservative": func(sel NodeSelector) engine.Policy { return NewConservative(sel) },
}

// newFromSpec builds the policy a spec string names: the dedicated
// implementation when the point has one, else Classic.
func newFromSpec(name string, sel NodeSelector) (engine.Policy, error) {
	s, err := ParseSpec(name)
	if err != nil {
		return nil, err
	}
	for n, f := range fast {
		if aliases[n].spec == s {
			return f(sel), nil
		}
	}
	return NewClassic(s, sel), nil
}

func init() {
	const (
		pyss = "pyss"
		mf   = "Mu'alem & Feitelson 2001"
		tef  = "Tsafrir, Etsion & Feitelson 2007"
		tf   = "Tsafrir & Feitelson 2006"
		cs   = "Carastan-Santos & de Camargo 2017"
	)
	for _, a := range [][5]string{
		{"fcfs", "classic:backfill=none", "first come, first served: start jobs in arrival order, never out of order", "", "pyss fcfs"},
		{"easy", "classic", "EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001): only the queue head holds a reservation; decides once every job ending at an instant has released its processors", mf, "pyss easy"},
		{"conservative", "classic:depth=all", "conservative backfilling (Mu'alem & Feitelson 2001): every job holds a reservation, compressed when jobs end early", mf, "pyss cons"},
		{"conservative-no-compress", "classic:depth=all,compress=no", "conservative backfilling whose reservations never move (Alea's conservative without compression)", mf, ""},
		{"conservative-double", "classic:depth=all,estimate=double", "conservative backfilling planning with twice the requested time", tf, "pyss double-cons"},
		{"filler", "classic:depth=0", "no reservation: start every waiting job that fits, in queue order (batsched's filler, aggressive backfilling without a reservation)", "", ""},
		{"easy-perfect", "classic:estimate=exact", "EASY with exact run times as estimates", mf, "pyss perfect-easy"},
		{"easy-sjbf", "classic:backfill=sjbf", "EASY whose backfill candidates go shortest estimate first", tef, "pyss easy-sjbf"},
		{"easy-reverse", "classic:backfill=reverse", "EASY whose backfill candidates go latest arrival first", "", "pyss reverse-easy"},
		{"easy-greedy", "classic:backfill=greedy", "EASY backfilling the best of five candidate orders, the head reserved no earlier than now + its estimate", "", "pyss greedy-easy (first top-scoring order)"},
		{"easy-lookahead", "classic:backfill=lookahead", "EASY backfilling the set of jobs with the largest processors × estimate (dynamic programming, LOS)", "Shmueli & Feitelson 2005", "pyss lookahead-easy"},
		{"easy-double", "classic:estimate=double", "EASY planning with twice the requested time", tf, "pyss double-easy"},
		{"easy-perfect-double", "classic:estimate=perfect-double", "EASY planning with twice the exact run time", tf, "pyss double-perfect-easy"},
		{"easy-head-double", "classic:estimate=head-double", "EASY; a job started as the head is held for twice its request", tf, "pyss head-double-easy"},
		{"easy-tail-double", "classic:estimate=tail-double", "EASY; a backfilled job is tested and held with twice its request", tf, "pyss tail-double-easy"},
		{"easy-shrinking", "classic:estimate=shrink", "EASY planning with half the requested time, the full request once exceeded", "", "pyss shrinking-easy"},
		{"easy-plus-plus", "classic:backfill=sjbf,estimate=epp", "EASY++: shortest-prediction backfilling with the mean of the user's last two run times, corrected to the request on under-prediction", tef, "pyss easy-plus-plus"},
		{"easy-plus-plus-common", "classic:backfill=sjbf,estimate=epp,common=yes", "EASY++ predicting from the last two jobs of the whole system", tef, "pyss common-dist-easy-plus-plus"},
		{"easy-alpha", "classic:backfill=sjbf,estimate=alpha", "EASY++ predicting the request × the user's mean run/request ratio", "", "pyss alpha-easy"},
		{"easy-probabilistic", "classic:backfill=probabilistic", "probabilistic backfilling: a candidate starts if its chance of delaying the head, from per-user run-time histograms, is at most 0.2", "Nissimov & Feitelson 2007", "pyss orig-probabilistic-easy"},
		{"easy-probabilistic-common", "classic:backfill=probabilistic,common=yes", "probabilistic backfilling with one run-time histogram for the whole system", "Nissimov & Feitelson 2007", "pyss orig-common-dist-probabilistic-easy"},
		{"maui", "classic:order=maui", "EASY on a queue ordered by Maui priority (weights w_wait, w_sld, w_bypass, w_size; default wait only, pyss's toy Maui)", "", "pyss maui"},
	} {
		RegisterAlias(a[0], a[1], a[2], a[3], a[4])
	}
	for _, o := range []struct{ name, src string }{
		{"sjf", ""}, {"ljf", ""}, {"wfp3", "Tang et al. 2009"}, {"unicep", "Tang et al. 2009"},
		{"f1", cs}, {"f2", cs}, {"f3", cs}, {"f4", cs},
	} {
		doc := AxisDoc["order="+o.name]
		RegisterAlias(o.name, "classic:backfill=none,order="+o.name, "queue order "+strings.ToUpper(o.name)+" ("+doc+"), no backfilling (as RLScheduler runs it)", o.src, "")
		RegisterAlias(o.name+"-easy", "classic:order="+o.name, "queue order "+strings.ToUpper(o.name)+" ("+doc+") with EASY backfilling", o.src, "")
	}
}
