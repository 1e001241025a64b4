// Package quote quotes user input in error messages, at most MaxRunes
// characters of it: a message about a 300 MB cell names the cell, it
// does not repeat it.
package quote

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxRunes is how much of a value a message quotes.
const MaxRunes = 80

// Clip is s quoted (strconv.Quote), cut to its first MaxRunes characters
// with its length said when longer: "abc…" (300000000 bytes).
func Clip(s string) string {
	if utf8.RuneCountInString(s) <= MaxRunes {
		return strconv.Quote(s)
	}
	cut, n := 0, 0
	for i := range s {
		if n == MaxRunes {
			cut = i
			break
		}
		n++
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// Text is s as it is when at most MaxRunes characters long, else its
// first MaxRunes characters and its length ("123…" (4000 bytes)), for
// values that need no quotes (a number).
func Text(s string) string {
	if utf8.RuneCountInString(s) <= MaxRunes {
		return s
	}
	q := Clip(s)
	unq, err := strconv.Unquote(q[:strings.Index(q, "…")])
	if err != nil {
		return q
	}
	return unq + q[strings.Index(q, "…"):]
}
