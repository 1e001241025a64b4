package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ProvenanceFile is written next to runs.csv and aggregate.csv: what
// produced them.
const ProvenanceFile = "provenance.json"

// Provenance is what produced a store's results: the experiment, the
// code identities that made its runs (with how many each made) and the
// contents of every input. It is the same wherever the store was made
// (no machine paths), so shards merged from several machines export the
// same file as one machine's run.
type Provenance struct {
	Experiment  string     `json:"experiment"`
	Label       string     `json:"label,omitempty"`
	SpecHash    string     `json:"spec_hash"`
	StoreFormat int        `json:"store_format"`
	MadeBy      string     `json:"made_by,omitempty"` // the gridsched that made the store (its version)
	Code        []CodeRuns `json:"code"`
	Inputs      []Input    `json:"inputs"`
	Runs        int        `json:"runs"`
}

// CodeRuns is one code identity and the number of runs it made.
type CodeRuns struct {
	Identity string `json:"identity"`
	Runs     int    `json:"runs"`
}

// ProvenanceOf describes a store's results (rows: its runs).
func ProvenanceOf(st *Store, name string, rows []Row) Provenance {
	p := Provenance{Experiment: name, Label: st.Label, SpecHash: st.Hash, StoreFormat: st.Format, MadeBy: st.Version, Runs: len(rows), Inputs: []Input{}, Code: []CodeRuns{}}
	for _, in := range st.Inputs {
		in.Path = "" // where a machine keeps it: not part of what produced the results
		p.Inputs = append(p.Inputs, in)
	}
	count := map[string]int{}
	for _, r := range rows {
		count[r.Code]++
	}
	for _, c := range st.Codes {
		p.Code = append(p.Code, CodeRuns{Identity: c, Runs: count[c]})
		delete(count, c)
	}
	for _, c := range sortedKeys(count) { // runs of a store of format 1: no identity
		id := c
		if id == "" {
			id = "unknown (store format 1)"
		}
		p.Code = append(p.Code, CodeRuns{Identity: id, Runs: count[c]})
	}
	return p
}

// WriteProvenance writes p as indented JSON.
func WriteProvenance(w io.Writer, p Provenance) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Note is the provenance as one sentence for a report.
func (p Provenance) Note() string {
	var code []string
	for _, c := range p.Code {
		code = append(code, fmt.Sprintf("%s (%d runs)", c.Identity, c.Runs))
	}
	s := fmt.Sprintf("Provenance: code identity %s", strings.Join(code, ", "))
	if len(p.Code) > 1 {
		s += " — runs of several versions of the code, mixed with --allow-code-change"
	}
	if p.MadeBy != "" {
		s += "; store made by " + p.MadeBy
	}
	return s + fmt.Sprintf("; spec hash %s; inputs: %s.", p.SpecHash, describeInputs(p.Inputs))
}
