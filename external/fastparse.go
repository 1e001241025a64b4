package external

import (
	"strconv"
)

// parseDecision reads a decision message without reflection: the common
// case, a decision of start, reject, preempt, kill and timer actions,
// costs a few hundred nanoseconds instead of encoding/json's microseconds
// (a decision is a round trip; SDSC-SP2 under EASY takes 107,000). It
// accepts exactly the JSON text encoding/json would accept into the same
// fields and reports false on anything else: unusual input (escapes in a
// string, an unknown key, a repeated key, a malformed number) goes to the
// general parser, which also writes the error messages.
func parseDecision(b []byte, r *reply) bool {
	s := scan{b: b}
	if !s.byte('{') {
		return false
	}
	var sawType, sawSeq, sawActions bool
	for first := true; ; first = false {
		if s.byte('}') {
			break
		}
		if !first && !s.byte(',') {
			return false
		}
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return false
		}
		switch key {
		case "type":
			v, ok := s.str()
			if !ok || v != "decision" || sawType {
				return false
			}
			sawType = true
		case "seq":
			n, ok := s.int()
			if !ok || sawSeq {
				return false
			}
			seq := n
			r.Seq, sawSeq = &seq, true
		case "actions":
			if sawActions || !s.actions(r) {
				return false
			}
			sawActions = true
		case "wake":
			if r.Wake != nil || !s.wake(r) {
				return false
			}
		default:
			return false
		}
	}
	s.ws()
	if s.i != len(s.b) || !sawType || !sawActions {
		return false
	}
	r.Type = "decision"
	return true
}

type scan struct {
	b []byte
	i int
}

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// byte skips blanks and consumes c if it comes next.
func (s *scan) byte(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string without escapes.
func (s *scan) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			v := string(s.b[start:s.i])
			s.i++
			return v, true
		}
		if c == '\\' || c < 0x20 {
			return "", false
		}
		s.i++
	}
	return "", false
}

// number reads a JSON number's text: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) number() (text []byte, integer bool, ok bool) {
	s.ws()
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return nil, false, false
	}
	integer = true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, false, false
		}
		integer = false
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, false, false
		}
		integer = false
	}
	return s.b[start:s.i], integer, true
}

func (s *scan) int() (int64, bool) {
	t, integer, ok := s.number()
	if !ok || !integer {
		return 0, false
	}
	n, err := strconv.ParseInt(string(t), 10, 64)
	return n, err == nil
}

func (s *scan) float() (float64, bool) {
	t, _, ok := s.number()
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(t), 64)
	return x, err == nil
}

func (s *scan) actions(r *reply) bool {
	if s.byte('n') { // null: no actions, as encoding/json reads it
		if s.i+3 <= len(s.b) && string(s.b[s.i:s.i+3]) == "ull" {
			s.i += 3
			r.Actions = r.Actions[:0]
			return true
		}
		return false
	}
	if !s.byte('[') {
		return false
	}
	r.Actions = r.Actions[:0]
	for first := true; ; first = false {
		if s.byte(']') {
			return true
		}
		if !first && !s.byte(',') {
			return false
		}
		s.ws()
		start := s.i
		var a action
		if !s.action(&a) {
			return false
		}
		a.raw = string(s.b[start:s.i])
		r.Actions = append(r.Actions, a)
	}
}

func (s *scan) action(a *action) bool {
	if !s.byte('{') {
		return false
	}
	for first := true; ; first = false {
		if s.byte('}') {
			return true
		}
		if !first && !s.byte(',') {
			return false
		}
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return false
		}
		var dst **int64
		switch key {
		case "start":
			dst = &a.Start
		case "reject":
			dst = &a.Reject
		case "preempt":
			dst = &a.Preempt
		case "kill":
			dst = &a.Kill
		case "tag":
			dst = &a.Tag
		case "timer":
			x, ok := s.float()
			if !ok || a.Timer != nil {
				return false
			}
			a.Timer = &x
			continue
		case "alloc":
			if a.Alloc != nil || !s.alloc(a) {
				return false
			}
			continue
		default:
			return false
		}
		n, ok := s.int()
		if !ok || *dst != nil {
			return false
		}
		*dst = &n
	}
}

func (s *scan) alloc(a *action) bool {
	if !s.byte('[') {
		return false
	}
	a.Alloc = [][]int64{}
	for first := true; ; first = false {
		if s.byte(']') {
			return true
		}
		if !first && !s.byte(',') {
			return false
		}
		span := make([]int64, 3)
		if !s.byte('[') {
			return false
		}
		for k := range span {
			if k > 0 && !s.byte(',') {
				return false
			}
			n, ok := s.int()
			if !ok {
				return false
			}
			span[k] = n
		}
		if !s.byte(']') {
			return false
		}
		a.Alloc = append(a.Alloc, span)
	}
}

func (s *scan) wake(r *reply) bool {
	if s.byte('n') {
		if s.i+3 <= len(s.b) && string(s.b[s.i:s.i+3]) == "ull" {
			s.i += 3
			return true
		}
		return false
	}
	if !s.byte('{') {
		return false
	}
	w := &wake{}
	var sawSubmit, sawFits bool
	for first := true; ; first = false {
		if s.byte('}') {
			r.Wake = w
			return true
		}
		if !first && !s.byte(',') {
			return false
		}
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return false
		}
		switch key {
		case "free":
			n, ok := s.int()
			if !ok || w.Free != nil {
				return false
			}
			w.Free = &n
		case "submit":
			if sawSubmit || !s.boolean(&w.Submit) {
				return false
			}
			sawSubmit = true
		case "fits":
			if sawFits || !s.boolean(&w.Fits) {
				return false
			}
			sawFits = true
		default:
			return false
		}
	}
}

func (s *scan) boolean(dst *bool) bool {
	s.ws()
	for _, lit := range []string{"true", "false"} {
		if s.i+len(lit) <= len(s.b) && string(s.b[s.i:s.i+len(lit)]) == lit {
			s.i += len(lit)
			*dst = lit == "true"
			return true
		}
	}
	return false
}
