package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// AggregatesDir is the folder of a tables folder that holds the compact
// aggregates, one NAME.csv per experiment.
const AggregatesDir = "data"

// claimsTable is the report's table of a spec's claims.
func claimsTable(s *Spec, data Data) report.Table {
	ct := report.Table{Title: "The paper's claims and our results (verdicts from the 95% CIs, paired where the runs share seeds; a tie is not a win)",
		Columns: []string{"source", "claim", "paper", "ours", "relative effect (95% CI)", "test", "verdict", "detail", "note"}}
	for i := range s.Claims {
		res := Evaluate(s, &s.Claims[i], data)
		r := claimRow(s, res)
		var details []string
		for _, o := range res.Outcomes {
			prefix := ""
			if o.Reading != "" {
				prefix = o.Reading + ": "
			}
			for _, d := range o.Details {
				details = append(details, prefix+strings.TrimSpace(d))
			}
		}
		ct.Rows = append(ct.Rows, []string{r[1], r[2], r[3], r[4], r[5], r[6], r[7], strings.Join(details, "; "), s.Claims[i].Note})
	}
	return ct
}

// writeAggregates writes a store's compact aggregates into dir/NAME.csv
// and returns the experiment read back from them (what the tables use).
// The date is left empty: a report of the same store is the same file on
// any day (gridsched verdicts export dates the committed ones).
func writeAggregates(st *Store, s *Spec, rows []Row, dir string) (Experiment, error) {
	info := AggInfoOf(st, s)
	info.Date = ""
	f := BuildAggregates(s, rows, info)
	b, err := f.Bytes()
	if err != nil {
		return Experiment{}, err
	}
	path := filepath.Join(dir, s.Name+".csv")
	if err := writeFileAtomic(path, b); err != nil {
		return Experiment{}, err
	}
	g, err := ReadAggFile(path, b)
	if err != nil {
		return Experiment{}, err
	}
	return Experiment{Spec: s, Data: g, Info: g.AggInfo}, nil
}

// writeReproduction writes the reproduction table of each seed into dir
// and returns the tables.
func writeReproduction(dir string, exps []Experiment) ([]ReproTable, error) {
	rts := ReproductionTables(exps)
	for _, rt := range rts {
		md := filepath.Join(dir, "reproduction-seed"+rt.Seed+".md")
		if err := writeFileAtomic(md, []byte(rt.Markdown())); err != nil {
			return nil, err
		}
	}
	return rts, nil
}

// ExportAggregates writes the compact aggregates of a store into
// dir/data/NAME.csv, dated today: the claims and references are those
// of spec (the catalogue's, which may be newer than the store's). It
// returns the file's path.
func ExportAggregates(st *Store, spec *Spec, dir string) (string, error) {
	rows, err := st.Rows()
	if err != nil {
		return "", err
	}
	rows = spec.PairedRows(rows)
	info := AggInfoOf(st, spec)
	if info.Store, err = st.Digest(); err != nil {
		return "", err
	}
	f := BuildAggregates(spec, rows, info)
	b, err := f.Bytes()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, AggregatesDir, spec.Name+".csv")
	return path, writeFileAtomic(path, b)
}

// LoadTablesDir reads the compact aggregates of a tables folder
// (DIR/data/*.csv) with the built-in specs they belong to, in name
// order; every unanswerable question (claims changed since the files
// were written) is an error.
func LoadTablesDir(dir string) ([]Experiment, error) {
	files, err := filepath.Glob(filepath.Join(dir, AggregatesDir, "*.csv"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var exps []Experiment
	for _, p := range files {
		f, err := LoadAggFile(p)
		if err != nil {
			return nil, err
		}
		s, err := LoadBuiltinScale(f.Experiment, f.Label)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		exps = append(exps, Experiment{Spec: s, Data: f, Info: f.AggInfo})
	}
	return exps, nil
}

// Tables regenerates the reproduction tables of a tables folder from its
// aggregates: the files' paths and contents.
func Tables(dir string) (map[string][]byte, []ReproTable, error) {
	exps, err := LoadTablesDir(dir)
	if err != nil {
		return nil, nil, err
	}
	rts := ReproductionTables(exps)
	var errs []error
	for _, e := range exps {
		if f, ok := e.Data.(*AggFile); ok {
			if m := f.Missing(); len(m) > 0 {
				errs = append(errs, fmt.Errorf("%s: the aggregates of %s do not answer %d questions of its claims (e.g. %s): the claims changed since they were written; export them again from the store (gridsched verdicts export)",
					filepath.Join(dir, AggregatesDir, e.Spec.Name+".csv"), e.Spec.Name, len(m), m[0]))
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	out := map[string][]byte{}
	for _, rt := range rts {
		out[filepath.Join(dir, "reproduction-seed"+rt.Seed+".md")] = []byte(rt.Markdown())
	}
	return out, rts, nil
}

// The markers around a seed doc's generated summary.
var (
	summaryBegin = regexp.MustCompile(`(?m)^<!-- verdicts: seed (\d{3})\b[^\n]*-->\n`)
	summaryEnd   = "<!-- end of the generated verdicts -->\n"
)

// SummaryBegin is the line that opens seed's generated summary in its doc.
func SummaryBegin(seed string) string {
	return "<!-- verdicts: seed " + seed + " (generated by gridsched verdicts from the reproduction tables; do not edit until the end marker) -->\n"
}

// WithSummary returns doc with its generated summary replaced by
// summary (between the markers). A doc without markers gets them after
// its title (the first line, a # heading). It returns the seed the
// markers name.
func WithSummary(doc []byte, seed, summary string) ([]byte, error) {
	m := summaryBegin.FindSubmatchIndex(doc)
	if m == nil {
		title := bytes.IndexByte(doc, '\n')
		if !bytes.HasPrefix(doc, []byte("# ")) || title < 0 {
			return nil, fmt.Errorf("no summary markers and no title line to put them after")
		}
		block := "\n" + SummaryBegin(seed) + summary + summaryEnd
		return append(append(append([]byte(nil), doc[:title+1]...), block...), doc[title+1:]...), nil
	}
	if got := string(doc[m[2]:m[3]]); got != seed {
		return nil, fmt.Errorf("the summary markers name seed %s, not %s", got, seed)
	}
	end := bytes.Index(doc[m[1]:], []byte(summaryEnd))
	if end < 0 {
		return nil, fmt.Errorf("the summary of seed %s has no end marker %q", seed, strings.TrimSpace(summaryEnd))
	}
	var b bytes.Buffer
	b.Write(doc[:m[0]])
	b.WriteString(SummaryBegin(seed))
	b.WriteString(summary)
	b.WriteString(summaryEnd)
	b.Write(doc[m[1]+end+len(summaryEnd):])
	return b.Bytes(), nil
}

// SeedDocs are the docs that open with each seed's summary.
var SeedDocs = map[string]string{
	"000": "reservations.md",
	"001": "hierarchical.md",
	"002": "unstable.md",
	"003": "cloud.md",
	"004": "workloads.md",
}

// Regenerate regenerates, under the docs folder docs, the reproduction
// tables of docs/reproduction/quick and docs/reproduction/paper from
// their aggregates, the summaries at the top of the seed docs (from the
// paper-scale table of a seed, else its quick one) and the results tables
// of DocTables: every file's path and the content it must have.
func Regenerate(docs string) (map[string][]byte, error) {
	out := map[string][]byte{}
	tables := map[string]ReproTable{}
	quick := map[string]ReproTable{}
	where := map[string]string{}
	for _, scale := range []string{"quick", "paper"} {
		dir := filepath.Join(docs, "reproduction", scale)
		if _, err := os.Stat(filepath.Join(dir, AggregatesDir)); err != nil {
			continue
		}
		files, rts, err := Tables(dir)
		if err != nil {
			return nil, err
		}
		for p, b := range files {
			out[p] = b
		}
		for _, rt := range rts {
			tables[rt.Seed] = rt // paper, read last, wins
			where[rt.Seed] = "reproduction/" + scale
			if scale == "quick" {
				quick[rt.Seed] = rt
			}
		}
	}
	for _, seed := range sortedKeys(SeedDocs) {
		path := filepath.Join(docs, SeedDocs[seed])
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		summary := fmt.Sprintf("*No reproduction table of seed %s is committed yet: run its experiments (`gridsched reproduce --seed %s`), then `gridsched verdicts export` (docs/reproduction/README.md).*\n", seed, seed)
		if rt, ok := tables[seed]; ok {
			summary = rt.Summary(where[seed])
			if q, ok := quick[seed]; ok && where[seed] != "reproduction/quick" {
				// Experiments not yet run at the paper scale keep their
				// quick verdicts in the summary, marked.
				summary = rt.SummaryWith(where[seed], &q, "reproduction/quick")
			}
		}
		b, err := WithSummary(doc, seed, summary)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[path] = b
	}
	if err := regenerateDocTables(docs, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Leftovers are the files under docs/reproduction that look generated
// (a reproduction table of a scale) but that Regenerate's files do not
// include: a table whose aggregates were removed, or a stray copy. The
// check reports them; a regeneration removes them.
func Leftovers(docs string, files map[string][]byte) ([]string, error) {
	var out []string
	for _, scale := range []string{"quick", "paper"} {
		have, err := filepath.Glob(filepath.Join(docs, "reproduction", scale, "reproduction-*.md"))
		if err != nil {
			return nil, err
		}
		for _, p := range have {
			if _, ok := files[p]; !ok {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListMarkdown is a Markdown table of every configuration of the runs:
// its swept parameters, each metric's mean ± 95% CI half-width, and n;
// with regime, whether resources are scarce (mean wait W at least the
// mean run time R = response − wait), ample (W ≤ 0.05 R) or between.
func ListMarkdown(rows []Row, metrics []string, regime bool) string {
	data := NewRowsData(rows)
	ps := make([]map[string]string, 0, len(data.Configs()))
	for _, c := range data.Configs() {
		ps = append(ps, c.Params)
	}
	var keys []string
	for _, k := range sortedParamKeys(ps) {
		vals := map[string]bool{}
		for _, p := range ps {
			vals[p[k]] = true
		}
		if len(vals) > 1 {
			keys = append(keys, k)
		}
	}
	head := make([]string, 0, len(keys)+len(metrics)+2)
	for _, k := range keys {
		head = append(head, shortName(k))
	}
	head = append(head, metrics...)
	if regime {
		head = append(head, "regime")
	}
	head = append(head, "n")
	var b strings.Builder
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat(" --- |", len(head)) + "\n")
	for _, c := range data.Configs() {
		var cells []string
		for _, k := range keys {
			cells = append(cells, shortName(c.Params[k]))
		}
		ns := map[int]bool{}
		for _, m := range metrics {
			st := data.Stat(c.Index, m)
			if st.N == 0 {
				cells = append(cells, "–")
				continue
			}
			ns[st.N] = true
			cells = append(cells, num(st.Mean)+" ± "+num(st.HalfWidth()))
		}
		if regime {
			w, r := data.Stat(c.Index, "mean_wait"), data.Stat(c.Index, "mean_response")
			cells = append(cells, regimeOf(w, r))
		}
		var sizes []int
		for n := range ns {
			sizes = append(sizes, n)
		}
		sort.Ints(sizes)
		cells = append(cells, intRange(sizes))
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// regimeOf: scarce (mean wait W ≥ mean run time R = response − wait),
// ample (W ≤ 0.05 R) or between.
func regimeOf(wait, resp Stat) string {
	if wait.N == 0 || resp.N == 0 {
		return "–"
	}
	run := resp.Mean - wait.Mean
	switch {
	case wait.Mean >= run:
		return "scarce"
	case wait.Mean <= 0.05*run:
		return "ample"
	}
	return "between"
}

// CheckClaim validates an ad-hoc claim (gridsched verdicts compare)
// against a spec: the problems, by key.
func CheckClaim(s *Spec, c *Claim) error {
	var errs []error
	c.validate(s, "claim", func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", strings.TrimPrefix(strings.TrimPrefix(path, "claim"), "."), fmt.Sprintf(format, args...)))
	})
	return errors.Join(errs...)
}

// ClaimMarkdown is an ad-hoc claim's verdict with the points behind it.
func ClaimMarkdown(s *Spec, c *Claim, data Data) string {
	res := Evaluate(s, c, data)
	row := claimRow(s, res)
	var b strings.Builder
	fmt.Fprintf(&b, "Verdict: **%s**. Ours: %s. Relative effect (subject − base)/|base|: %s. Test: %s.\n", res.Verdict, row[4], row[5], row[6])
	for _, d := range claimDetails(s, res)[3:] {
		b.WriteString(d + "\n")
	}
	return b.String()
}
