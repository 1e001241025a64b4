package experiment

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// Experiment is one experiment's spec and the data its verdicts read.
type Experiment struct {
	Spec *Spec
	Data Data
	Info AggInfo
}

// ReproTable is one seed's reproduction table: a row per claim and per
// paper number, and the points behind each verdict.
type ReproTable struct {
	Seed        string
	Scale       string // the label (quick, paper) or "" (default)
	Experiments []Experiment
	Table       report.Table
	Details     []string // Markdown lines: the points behind each claim's verdict
	Claims      []ClaimResult
	claimExp    []string // the experiment of each claim result
	refCounts   map[string]int
}

var seedOf = regexp.MustCompile(`(?i)\bseed (\d{3})\b`)

// SeedOf is the seed (paper) a spec reproduces, from "Seed NNN" in its
// description or plot title ("" if none).
func SeedOf(s *Spec) string {
	for _, t := range []string{s.Description, s.Plot.Title} {
		if m := seedOf.FindStringSubmatch(t); m != nil {
			return m[1]
		}
	}
	return ""
}

// ReproColumns are the columns of a reproduction table.
var ReproColumns = []string{"experiment", "where in the paper", "statement", "paper", "ours", "relative effect (95% CI)", "test", "verdict"}

// ReproductionTables builds, per seed, one table of every claim and every
// reference number of its experiments, in the experiments' order.
func ReproductionTables(exps []Experiment) []ReproTable {
	bySeed := map[string]*ReproTable{}
	var order []string
	for _, e := range exps {
		s := e.Spec
		seed := SeedOf(s)
		if seed == "" || (len(s.Claims) == 0 && len(s.References) == 0) {
			continue
		}
		rt := bySeed[seed]
		if rt == nil {
			rt = &ReproTable{Seed: seed, Scale: e.Info.Label, Table: report.Table{Title: "Seed " + seed + ": reproduction table", Columns: ReproColumns}, refCounts: map[string]int{}}
			bySeed[seed] = rt
			order = append(order, seed)
		}
		rt.Experiments = append(rt.Experiments, e)
		for k := range s.Claims {
			c := &s.Claims[k]
			res := Evaluate(s, c, e.Data)
			rt.Claims = append(rt.Claims, res)
			rt.claimExp = append(rt.claimExp, s.Name)
			rt.Table.Rows = append(rt.Table.Rows, claimRow(s, res))
			rt.Details = append(rt.Details, claimDetails(s, res)...)
		}
		notRun := map[string]int{}
		var sources []string
		for k := range s.References {
			ref := &s.References[k]
			row, ran, class := refRow(s, ref, e.Data)
			if !ran {
				if notRun[ref.Source] == 0 {
					sources = append(sources, ref.Source)
				}
				notRun[ref.Source]++
				continue
			}
			rt.refCounts[class]++
			rt.Table.Rows = append(rt.Table.Rows, row)
		}
		for _, src := range sources {
			rt.refCounts[NotRun] += notRun[src]
			rt.Table.Rows = append(rt.Table.Rows, []string{s.Name, src, fmt.Sprintf("%d more numbers of %s", notRun[src], src), "–", "no run", "–", "–", NotRun})
		}
	}
	sort.Strings(order)
	var out []ReproTable
	for _, s := range order {
		out = append(out, *bySeed[s])
	}
	return out
}

// claimRow is a claim's row: its outcomes joined, the paper's reading
// first.
func claimRow(s *Spec, res ClaimResult) []string {
	c := res.Claim
	statement := c.Claim
	if c.Inferred {
		statement += " (inferred: the paper does not print this)"
	}
	paper := c.Paper
	var extra []string
	if c.Ratio > 0 {
		extra = append(extra, fmt.Sprintf("ratio %s/%s = %s", shortName(c.Better), shortName(c.Worse), strconv.FormatFloat(c.Ratio, 'g', -1, 64)))
		if c.At != nil {
			extra[len(extra)-1] += " at " + shortName(xOf(s)) + " = " + FormatValue(c.At)
		}
	}
	if c.Change != nil {
		extra = append(extra, "change "+signed(*c.Change))
	}
	if c.kind() == "bound" {
		b := boundWords(c)
		if c.Share != nil {
			b += " in a share " + strconv.FormatFloat(*c.Share, 'g', 3, 64) + " of the configurations"
		}
		extra = append(extra, b)
	}
	if len(c.Where) > 0 {
		var ws []string
		for _, k := range sortedKeys(c.Where) {
			ws = append(ws, shortName(k)+"="+strings.Join(whereValues(c.Where[k]), ", "))
		}
		extra = append(extra, "judged at "+strings.Join(ws, "; "))
	}
	if len(extra) > 0 && !strings.Contains(paper, strings.Join(extra, "; ")) {
		paper = strings.TrimPrefix(paper+"; "+strings.Join(extra, "; "), "; ")
	}
	if paper == "" {
		paper = "(no number; the claim is qualitative)"
	}
	join := func(f func(Outcome) string) string {
		if len(res.Outcomes) == 1 {
			return f(res.Outcomes[0])
		}
		parts := make([]string, len(res.Outcomes))
		for i, o := range res.Outcomes {
			parts[i] = o.Reading + ": " + f(o)
		}
		return strings.Join(parts, "; ")
	}
	var tests []string
	for _, o := range res.Outcomes {
		if !hasValue(tests, o.Test) && o.Test != "–" {
			tests = append(tests, o.Test)
		}
	}
	test := strings.Join(tests, "; ")
	if test == "" {
		test = "–"
	}
	return []string{s.Name, c.Source, statement, paper, join(func(o Outcome) string { return o.Ours }), join(func(o Outcome) string { return o.Effect }), test, res.Verdict}
}

// claimDetails are the Markdown lines behind a claim's verdict.
func claimDetails(s *Spec, res ClaimResult) []string {
	c := res.Claim
	out := []string{"", fmt.Sprintf("**%s** — %s (%s): %s", s.Name, c.Claim, c.Source, res.Verdict), ""}
	for _, o := range res.Outcomes {
		indent := ""
		if o.Reading != "" {
			out = append(out, "- under "+o.Reading+": "+o.Verdict)
			indent = "  "
		}
		for _, d := range o.Details {
			out = append(out, indent+"- "+mdEscape(strings.TrimLeft(d, " ")))
		}
		if len(o.Details) == 0 {
			out = append(out, indent+"- "+o.Ours)
		}
	}
	if c.Note != "" {
		out = append(out, "", "Note: "+strings.Join(strings.Fields(c.Note), " "))
	}
	return out
}

// refStat is our statistic at a reference's configuration: the first
// configuration (in sweep order) with the reference's values that has
// its metric.
func refStat(ref *Reference, data Data) (Stat, bool) {
	for _, cf := range data.Configs() {
		if !ref.matches(&Agg{Metric: ref.Metric, Params: cf.Params}) {
			continue
		}
		if st := data.Stat(cf.Index, ref.Metric); st.N > 0 {
			return st, true
		}
	}
	return Stat{}, false
}

// Reference classes.
const (
	RefWithin   = "paper's number within our 95% CI"
	RefSameSign = "same sign, outside our 95% CI"
	RefOpposite = "opposite sign, outside our 95% CI"
)

// refRow is a paper number's row, whether it ran, and its class.
func refRow(s *Spec, ref *Reference, data Data) ([]string, bool, string) {
	st, ok := refStat(ref, data)
	if !ok {
		return nil, false, NotRun
	}
	var parts []string
	for _, key := range sortedKeys(ref.Where) {
		parts = append(parts, shortName(key)+"="+FormatValue(ref.Where[key]))
	}
	h := st.HalfWidth()
	ours := fmt.Sprintf("%s ± %s (n=%d)", num(st.Mean), num(h), st.N)
	eff := "–"
	if ref.Value != 0 {
		e := (st.Mean - ref.Value) / math.Abs(ref.Value)
		eff = signed(e)
		if !math.IsNaN(h) {
			eff += " ± " + pct(h/math.Abs(ref.Value))
		}
	}
	var class string
	switch {
	case math.IsNaN(h):
		class = NotEnough
	case math.Abs(st.Mean-ref.Value) <= h:
		class = RefWithin
	case (st.Mean > 0) == (ref.Value > 0):
		class = RefSameSign
	default:
		class = RefOpposite
	}
	return []string{s.Name, ref.Source, s.metricInfo(ref.Metric).Name + " at " + strings.Join(parts, ", "),
		strconv.FormatFloat(ref.Value, 'g', -1, 64), ours, eff, "CI of our mean, n=" + strconv.Itoa(st.N), class}, true, class
}

// ReproductionReadme is where the rules and the sign convention are
// defined (relative to a table's folder).
const ReproductionReadme = "../README.md"

// Markdown renders the table as a Markdown document: what it was made
// from (scale, runs, code identity, date of the aggregates), the table,
// and the points behind each verdict.
func (rt ReproTable) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Seed %s: reproduction table (%s scale)\n\n", rt.Seed, scaleName(rt.Scale))
	fmt.Fprintf(&b, "Generated by `gridsched verdicts` from the compact aggregates in `data/` (one file per experiment, written from the result stores by `gridsched verdicts export`); do not edit by hand. "+
		"The verdict rules, the sign convention — relative effect = (subject − base) / |base|, for a trend (last − first) / |first| — and the aggregates' format are defined in [the reproduction README](%s).\n\n", ReproductionReadme)
	b.WriteString("| experiment | label | runs | code | aggregates written | spec |\n| --- | --- | --- | --- | --- | --- |\n")
	runs := 0
	for _, e := range rt.Experiments {
		runs += e.Info.Runs
		spec := "as run"
		if h := e.Spec.Hash(); e.Info.SpecHash != "" && h != e.Info.SpecHash {
			spec = fmt.Sprintf("changed since these runs (runs %s, spec now %s): re-run", e.Info.SpecHash, h)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join([]string{mdCell(e.Spec.Name), scaleName(e.Info.Label), commas(e.Info.Runs), mdCell(e.Info.Code), orDefault(e.Info.Date, "–"), spec}, " | "))
	}
	fmt.Fprintf(&b, "\n%d %s, %s runs. %s\n\n", len(rt.Experiments), plural(len(rt.Experiments), "experiment", "experiments"), commas(runs), rt.tally())
	b.WriteString("| " + strings.Join(rt.Table.Columns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(rt.Table.Columns)) + "\n")
	for _, r := range rt.Table.Rows {
		cs := make([]string, len(r))
		for i, c := range r {
			cs[i] = mdCell(c)
		}
		b.WriteString("| " + strings.Join(cs, " | ") + " |\n")
	}
	if len(rt.Details) > 0 {
		b.WriteString("\n## The points behind each verdict\n")
		for _, d := range rt.Details {
			b.WriteString(d + "\n")
		}
	}
	return b.String()
}

// tally counts the claims by verdict (each reading counted once per
// claim: the combined verdict's classes) and the paper numbers by class.
// A reading not run at this scale is no verdict: a claim whose readings
// that ran agree on one class counts in that class, and only a claim none
// of whose readings ran counts as not run.
func (rt ReproTable) tally() string {
	count := map[string]int{}
	for _, r := range rt.Claims {
		count[claimClass(r.Outcomes)]++
	}
	var parts []string
	for _, k := range []string{Agrees, DifferentSize, Partly, Negligible, NoDifference, Disagrees, Mixed, "depends on the reading", NotEnough, NotRun} {
		if count[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, count[k]))
		}
	}
	out := fmt.Sprintf("Claims (%d): %s.", len(rt.Claims), orDefault(strings.Join(parts, ", "), "none"))
	nrefs := 0
	var rp []string
	for _, k := range []string{RefWithin, RefSameSign, RefOpposite, NotEnough, NotRun} {
		if n := rt.refCounts[k]; n > 0 {
			nrefs += n
			rp = append(rp, fmt.Sprintf("%s %d", k, n))
		}
	}
	if nrefs > 0 {
		out += fmt.Sprintf(" Paper numbers (%d): %s.", nrefs, strings.Join(rp, ", "))
	}
	return out
}

// runs is the number of runs behind the table's experiments.
func (rt ReproTable) runs() int {
	n := 0
	for _, e := range rt.Experiments {
		n += e.Info.Runs
	}
	return n
}

// label is the claim as a summary row names it ("(inferred)" marked).
func (r ClaimResult) label() string {
	if r.Claim.Inferred {
		return r.Claim.Claim + " (inferred)"
	}
	return r.Claim.Claim
}

// effects is what our runs show of the claim: the relative effects of
// each reading ("reading: effect" when there are several), joined.
func (r ClaimResult) effects() string {
	var es []string
	for _, o := range r.Outcomes {
		e := o.Effect
		if len(r.Outcomes) > 1 {
			e = o.Reading + ": " + e
		}
		es = append(es, e)
	}
	return strings.Join(es, "; ")
}

// claimClass is the class a claim's outcomes count under in the tally:
// the one class of the readings that ran, "depends on the reading" when
// they differ, NotRun when none ran.
func claimClass(outs []Outcome) string {
	classes := map[string]bool{}
	for _, o := range outs {
		if o.Class != NotRun {
			classes[o.Class] = true
		}
	}
	switch len(classes) {
	case 0:
		return NotRun
	case 1:
		for c := range classes {
			return c
		}
	}
	return "depends on the reading"
}

// Summary is the seed's verdict summary for the top of its doc (at most
// a screen): claim, paper, ours, verdict per reading. tables is the
// tables' folder relative to the doc.
func (rt ReproTable) Summary(tables string) string { return rt.summary(tables, nil, "") }

// SummaryWith is Summary of a paper-scale table with the claims of the
// seed's experiments that only the quick table holds (quick, whose folder
// relative to the doc is quickTables): they follow the paper-scale ones,
// each verdict marked "(quick scale)", outside the tally, and a line names
// those experiments. With a nil quick it is Summary.
func (rt ReproTable) SummaryWith(tables string, quick *ReproTable, quickTables string) string {
	return rt.summary(tables, quick, quickTables)
}

func (rt ReproTable) summary(tables string, quick *ReproTable, quickTables string) string {
	var b strings.Builder
	runs := rt.runs()
	fmt.Fprintf(&b, "**What our runs say, claim by claim** (%s scale: %d %s, %s runs; every point, test and note in [the reproduction table](%s/reproduction-seed%s.md); the rules and the sign convention, relative effect = (subject − base) / |base|, in [the reproduction README](%s)). %s\n",
		scaleName(rt.Scale), len(rt.Experiments), plural(len(rt.Experiments), "experiment", "experiments"), commas(runs), tables, rt.Seed, path.Join(path.Dir(tables), "README.md"), rt.tally())
	if rt.Scale != "paper" {
		b.WriteString("\n*These are the reduced-scale (" + scaleName(rt.Scale) + ") verdicts: the paper-scale aggregates of this seed are not committed yet.*\n")
	}
	claims := rt.Claims
	if extra, names := rt.quickOnly(quick); len(extra) > 0 {
		fmt.Fprintf(&b, "\n*Not yet run at the paper scale: %s. Their %d %s follow, with the reduced-scale (quick) verdicts of [the quick table](%s/reproduction-seed%s.md), marked \"(quick scale)\" and not counted above.*\n",
			strings.Join(names, ", "), len(extra), plural(len(extra), "claim", "claims"), quickTables, rt.Seed)
		claims = append(slices.Clone(claims), extra...)
	}
	head := "\n| where | claim | paper | ours | verdict |\n| --- | --- | --- | --- | --- |\n"
	b.WriteString(head)
	for i, r := range claims {
		if i == SummaryRows && len(claims) > SummaryRows {
			// At most a screen: the rest folded.
			fmt.Fprintf(&b, "\n<details><summary>%d more claims</summary>\n%s", len(claims)-SummaryRows, head)
		}
		c := r.Claim
		fmt.Fprintf(&b, "| %s |\n", strings.Join([]string{mdCell(c.Source), mdCell(r.label()), mdCell(orDefault(c.Paper, "–")), mdCell(r.effects()), mdCell(r.Verdict)}, " | "))
	}
	if len(claims) > SummaryRows {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// quickOnly are the claims of quick's experiments that rt (a paper-scale
// table) does not hold, their verdicts marked "(quick scale)", and the
// names of those experiments.
func (rt ReproTable) quickOnly(quick *ReproTable) ([]ClaimResult, []string) {
	if quick == nil {
		return nil, nil
	}
	have := map[string]bool{}
	for _, e := range rt.Experiments {
		have[e.Spec.Name] = true
	}
	var out []ClaimResult
	var names []string
	for i, r := range quick.Claims {
		name := quick.claimExp[i]
		if have[name] {
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		r.Verdict += " (quick scale)"
		out = append(out, r)
	}
	return out, names
}

// SummaryRows is the number of claims a seed doc's summary shows before
// folding the rest (at most a screen).
const SummaryRows = 30

func scaleName(label string) string {
	if label == "" {
		return "default"
	}
	return label
}

// mdCell makes a table cell: one line, pipes escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}

// mdEscape keeps a detail line on one line.
func mdEscape(s string) string { return strings.Join(strings.Fields(s), " ") }

// commas writes n with thousands separators: 12,345.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
