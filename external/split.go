package external

import (
	"fmt"
	"strings"
)

// SplitCommand splits a scheduler command line into words as a POSIX
// shell splits a simple command, without running a shell: words are
// separated by blanks; single quotes keep everything up to the next
// single quote; double quotes keep everything up to the next unescaped
// double quote, where a backslash escapes only $, `, ", \ and a newline;
// outside quotes a backslash escapes the next character. Nothing is
// expanded: $HOME, ~, *, ;, |, > and backquotes are ordinary characters,
// so a command from a spec or a flag can never run anything but its
// first word with the others as arguments.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command %q: unclosed single quote at character %d", s, i+1)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(s); i++ {
				c = s[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("command %q: unclosed double quote", s)
			}
		case c == '\\':
			inWord = true
			if i+1 >= len(s) {
				return nil, fmt.Errorf("command %q: ends with a backslash", s)
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("command %q: empty", s)
	}
	return words, nil
}
