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
	var sawType, sawSeq, sawActions, sawWake bool
	ok := s.object(func(key string) bool {
		switch key {
		case "type":
			v, ok := s.str()
			return ok && v == "decision" && once(&sawType)
		case "seq":
			n, ok := s.int()
			r.Seq = &n
			return ok && once(&sawSeq)
		case "actions":
			return once(&sawActions) && s.actions(r)
		case "wake":
			return once(&sawWake) && s.wake(r)
		}
		return false
	})
	s.ws()
	if !ok || s.i != len(s.b) || !sawType || !sawActions {
		return false
	}
	r.Type = "decision"
	return true
}

// once marks a key seen: false when it was already (a repeated key).
func once(seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
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

// lit consumes the literal word w (true, false, null) if it comes next.
func (s *scan) lit(w string) bool {
	s.ws()
	if s.i+len(w) <= len(s.b) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// object reads {"key": value, …}, calling field for each key with the
// scanner at the value; field reads the value and reports whether it is
// acceptable.
func (s *scan) object(field func(key string) bool) bool {
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
		if !ok || !s.byte(':') || !field(key) {
			return false
		}
	}
}

// list reads [item, …], calling item at each element.
func (s *scan) list(item func() bool) bool {
	if !s.byte('[') {
		return false
	}
	for first := true; ; first = false {
		if s.byte(']') {
			return true
		}
		if !first && !s.byte(',') {
			return false
		}
		if !item() {
			return false
		}
	}
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

// intTo reads an integer into a field not set yet.
func (s *scan) intTo(dst **int64) bool {
	n, ok := s.int()
	if !ok || *dst != nil {
		return false
	}
	*dst = &n
	return true
}

func (s *scan) boolean(dst *bool) bool {
	switch {
	case s.lit("true"):
		*dst = true
	case s.lit("false"):
		*dst = false
	default:
		return false
	}
	return true
}

func (s *scan) actions(r *reply) bool {
	r.Actions = r.Actions[:0]
	if s.lit("null") { // no actions, as encoding/json reads it
		return true
	}
	return s.list(func() bool {
		s.ws()
		start := s.i
		var a action
		if !s.object(func(key string) bool { return s.actionField(&a, key) }) {
			return false
		}
		a.raw = string(s.b[start:s.i])
		r.Actions = append(r.Actions, a)
		return true
	})
}

func (s *scan) actionField(a *action, key string) bool {
	switch key {
	case "start":
		return s.intTo(&a.Start)
	case "reject":
		return s.intTo(&a.Reject)
	case "preempt":
		return s.intTo(&a.Preempt)
	case "kill":
		return s.intTo(&a.Kill)
	case "tag":
		return s.intTo(&a.Tag)
	case "timer":
		t, _, ok := s.number()
		if !ok || a.Timer != nil {
			return false
		}
		x, err := strconv.ParseFloat(string(t), 64)
		a.Timer = &x
		return err == nil
	case "alloc":
		if a.Alloc != nil {
			return false
		}
		a.Alloc = [][]int64{}
		return s.list(func() bool {
			span := make([]int64, 0, 3)
			ok := s.list(func() bool {
				n, ok := s.int()
				span = append(span, n)
				return ok
			})
			a.Alloc = append(a.Alloc, span)
			return ok && len(span) == 3
		})
	}
	return false
}

func (s *scan) wake(r *reply) bool {
	if s.lit("null") {
		return true
	}
	w := &wake{}
	var sawSubmit, sawFits bool
	if !s.object(func(key string) bool {
		switch key {
		case "free":
			return s.intTo(&w.Free)
		case "submit":
			return once(&sawSubmit) && s.boolean(&w.Submit)
		case "fits":
			return once(&sawFits) && s.boolean(&w.Fits)
		}
		return false
	}) {
		return false
	}
	r.Wake = w
	return true
}
