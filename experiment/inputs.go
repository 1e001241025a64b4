package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/system"
)

// Input is one file an experiment reads, identified by its content: the
// store records every input's SHA-256, and a resume with a file whose
// content changed is refused (runs of two versions of a trace must never
// be mixed).
type Input struct {
	// Role says what the file is: "trace", "platform", or the section
	// whose parameter names it ("hierarchy" for a tree file).
	Role string `json:"role"`
	// Name is the file as the spec names it (a trace name is looked up
	// in the spec's folder, then GRIDSCHED_TRACES).
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Path is where it was found (informative: another machine may keep
	// the same content elsewhere).
	Path string `json:"path,omitempty"`
}

func (in Input) key() string { return in.Role + "|" + in.Name }

// Describe names the input for messages: "trace SDSC-SP2.swf.gz".
func (in Input) Describe() string { return in.Role + " " + in.Name }

// Inputs lists, in a fixed order, every file the spec's runs read —
// traces, platform files and the files systems' sections name (a
// hierarchy's tree), in the spec and in its grid and zip values — each
// with the SHA-256 and size of its content. It reads each file once;
// run CheckFiles first (a missing file is an error here too).
func (s *Spec) Inputs() ([]Input, error) {
	out, err := s.inputRefs()
	if err != nil {
		return nil, err
	}
	return out, HashInputs(out)
}

// inputRefs lists the inputs (Inputs) without reading them.
func (s *Spec) inputRefs() ([]Input, error) {
	type ref struct{ role, name, path string }
	var refs []ref
	trace := func(name string) {
		if name == "" {
			return
		}
		p, err := s.FindTrace(name)
		if err != nil {
			p = name // HashInputs reports it
		}
		refs = append(refs, ref{"trace", name, p})
	}
	varied := func(k string) bool { return s.Grid[k] != nil || s.Zip[k] != nil }
	values := func(k string) []any { return append(append([]any(nil), s.Grid[k]...), s.Zip[k]...) }
	if s.Workload.Model == "" && !varied("workload.trace") {
		trace(s.Workload.Trace)
	}
	if f, ok := s.Workload.Params["trace"].(string); ok && s.Workload.Model == "trace-reservations" && !varied("workload.params.trace") {
		trace(f)
	}
	for _, k := range []string{"workload.trace", "workload.params.trace"} {
		for _, v := range values(k) {
			if name, ok := v.(string); ok {
				trace(name)
			}
		}
	}
	platform := func(name string) {
		if name != "" {
			refs = append(refs, ref{"platform", name, s.resolvePath(name, false)})
		}
	}
	if !varied("platform.file") {
		platform(s.Platform.File)
	}
	for _, v := range values("platform.file") {
		if name, ok := v.(string); ok {
			platform(name)
		}
	}
	// Files of the systems' sections: what their Prepare resolves, for
	// the spec's sections and for every value a grid or zip sets in one.
	record := func(key string, sec any) {
		sys, _ := system.BySection(key)
		system.Prepare(map[string]any{key: sec}, func(f string) string {
			p := s.resolvePath(f, false)
			if sys != nil && sys.MaybeFiles && !fileExists(p) {
				return p // a word that names no file (an external scheduler's python3)
			}
			refs = append(refs, ref{key, f, p})
			return p
		})
	}
	for _, k := range sortedKeys(s.Sections) {
		record(k, system.CloneParams(s.Sections[k]))
	}
	for _, part := range []map[string][]any{s.Grid, s.Zip} {
		for _, k := range sortedKeys(part) {
			sys, rest, ok := section(k)
			if !ok {
				continue
			}
			for _, v := range part[k] {
				text, err := yamlx.Flow(v)
				if err != nil {
					continue
				}
				sec := sys.NewParams()
				if base, ok := s.Sections[sys.Section]; ok {
					sec = system.CloneParams(base)
				}
				if yamlx.DecodeStrict(k, yamlx.PathDoc(rest, text), sec) == nil {
					record(sys.Section, sec)
				}
			}
		}
	}
	seen := map[string]bool{}
	var out []Input
	for _, r := range refs {
		in := Input{Role: r.role, Name: r.name, Path: r.path}
		if seen[in.key()] {
			continue
		}
		seen[in.key()] = true
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, nil
}

// HashInputs reads each input's file (at Path) and sets its SHA-256 and
// size; files shared by several inputs are read once.
func HashInputs(ins []Input) error {
	type sum struct {
		hex  string
		size int64
	}
	done := map[string]sum{}
	for i := range ins {
		in := &ins[i]
		s, ok := done[in.Path]
		if !ok {
			h, n, err := HashFile(in.Path)
			if err != nil {
				return fmt.Errorf("%s: %w", in.Describe(), err)
			}
			s = sum{h, n}
			done[in.Path] = s
		}
		in.SHA256, in.Size = s.hex, s.size
	}
	return nil
}

// HashFile is the SHA-256 (hex) and size of a file's content (a
// compressed trace is hashed as stored).
func HashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// inputChanges compares the inputs a store recorded with the current
// ones and describes each difference ("" if none).
func inputChanges(stored, now []Input) []string {
	was := map[string]Input{}
	for _, in := range stored {
		was[in.key()] = in
	}
	var out []string
	for _, in := range now {
		old, ok := was[in.key()]
		delete(was, in.key())
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s (%s) is read now but was not when the store was made", in.Describe(), in.Path))
		case old.SHA256 != in.SHA256:
			where := in.Path
			if old.Path != "" && old.Path != in.Path {
				where = fmt.Sprintf("now %s, was %s", in.Path, old.Path)
			}
			out = append(out, fmt.Sprintf("%s (%s): its content changed (SHA-256 %s, %d bytes when the store was made; now %s, %d bytes)", in.Describe(), where, short(old.SHA256), old.Size, short(in.SHA256), in.Size))
		}
	}
	for _, k := range sortedKeys(was) {
		out = append(out, fmt.Sprintf("%s was read when the store was made and is not now", was[k].Describe()))
	}
	return out
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// describeInputs is "trace a.swf (SHA-256 0123…), platform p.yaml (…)".
func describeInputs(ins []Input) string {
	if len(ins) == 0 {
		return "none (generated workloads only)"
	}
	parts := make([]string, len(ins))
	for i, in := range ins {
		parts[i] = fmt.Sprintf("%s (SHA-256 %s, %d bytes)", in.Describe(), short(in.SHA256), in.Size)
	}
	return strings.Join(parts, ", ")
}
